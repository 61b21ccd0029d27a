#!/bin/sh
# Every suite must compare floats by bits or with a stated tolerance: Qt's QCOMPARE on
# float and double is fuzzy (a relative 1e-5 / 1e-12, and any two values both under
# 1e-5 / 1e-12 are equal), so a flushed 0 passes for 2^-20 and a wrong 1e-13 for 0.
# tests/support/ExactCompare.h makes QCOMPARE refuse float and double operands at compile
# time; this check fails when
#   1. a suite does not include it: every .cpp file under tests/ that includes QtTest
#      (every Qt Test suite, whatever its folder) must hold the line
#      #include "ExactCompare.h";
#   2. a suite goes around it: a line holding "#undef QCOMPARE", "qCompare(" or
#      "qFuzzyCompare(";
#   3. the guard stops guarding: a QCOMPARE of two floats must fail to compile with its
#      message, and QCOMPAREs of integers, strings and QCOMPARE_BITS must compile.
# Integer, string and container QCOMPAREs are never flagged: the guard looks at the
# operands' types, not at the text.
#
# Usage: check_exact_compares.sh TESTS_DIR CXX [-IDIR...]
set -eu
tests=$1
cxx=$2
shift 2

status=0
fail() {
  echo "check_exact_compares: $*" >&2
  status=1
}

# Every Qt Test suite: a file under tests/ (support headers aside) that includes QtTest.
suites=$(grep -rl --include='*.cpp' -e '#include <QtTest' "$tests" | grep -v "/support/" | sort)
[ -n "$suites" ] || fail "no Qt Test suite found under $tests"
count=0
for suite in $suites; do
  count=$((count + 1))
  grep -q '^#include "ExactCompare.h"$' "$suite" ||
    fail "$suite: a suite without #include \"ExactCompare.h\" (its float QCOMPAREs would be fuzzy)"
  if grep -n -e '#undef QCOMPARE' -e 'qCompare(' -e 'qFuzzyCompare(' "$suite" >&2; then
    fail "$suite: goes around the exact-compare guard (lines above)"
  fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
compile() {
  "$cxx" -std=c++20 -fPIC -fsyntax-only -DQT_NO_KEYWORDS "$@" -I"$tests/support" "$work/probe.cpp"
}

cat >"$work/probe.cpp" <<'EOF'
#include <QtTest/QtTest>
#include "ExactCompare.h"
void fuzzy() { QCOMPARE(0.1f + 0.2f, 0.3f); }
EOF
if compile "$@" >"$work/out.txt" 2>&1; then
  fail "a QCOMPARE of two floats compiled with ExactCompare.h included"
elif ! grep -q "QCOMPARE on float or double is fuzzy" "$work/out.txt"; then
  cat "$work/out.txt" >&2
  fail "the float QCOMPARE probe failed to compile, but not with the guard's message"
fi

cat >"$work/probe.cpp" <<'EOF'
#include <QtTest/QtTest>
#include <string>
#include <vector>
#include "ExactCompare.h"
void exact() {
    QCOMPARE(int64_t(3), int64_t(3));
    QCOMPARE(std::string("a"), std::string("a"));
    QCOMPARE(std::vector<double>{1.0}, std::vector<double>{1.0});
    QCOMPARE_BITS(0.5f, 0.5f);
    QCOMPARE_BITS(-0.0, -0.0);
}
EOF
if ! compile "$@" >"$work/out.txt" 2>&1; then
  cat "$work/out.txt" >&2
  fail "integer, string and container QCOMPAREs or QCOMPARE_BITS no longer compile with ExactCompare.h"
fi

[ "$status" -eq 0 ] && echo "check_exact_compares: all $count Qt Test suites include ExactCompare.h; the guard refuses a float QCOMPARE"
exit "$status"
