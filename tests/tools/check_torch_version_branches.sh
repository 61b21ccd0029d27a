#!/bin/sh
# Fails when a file of core, app or ui branches on LibTorch's version itself: the
# versions' differences are decided once, in core/common/TorchCompat.h, which names the
# version that needs each branch; elsewhere code tests the feature macro it defines.
#   check_torch_version_branches.sh SOURCE_ROOT
set -eu
root=$1
found=$(grep -rnE '^[[:space:]]*#[[:space:]]*(if|elif|ifdef|ifndef).*(TORCH_VERSION|AMPSCOPE_TORCH_AT_LEAST)' \
    "$root/core" "$root/app" "$root/ui" --include='*.cpp' --include='*.h' --include='*.cu' |
    grep -v "^$root/core/common/TorchCompat.h:" || true)
if [ -n "$found" ]; then
    echo "a LibTorch version test outside core/common/TorchCompat.h (add a feature macro there):"
    echo "$found"
    exit 1
fi
echo "no LibTorch version test outside core/common/TorchCompat.h"
