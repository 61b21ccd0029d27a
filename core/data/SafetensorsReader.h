#pragma once
// INTERNAL (includes torch). SafetensorsReader: the tensors of a safetensors file as CPU
// torch tensors. The header and its checks are SafetensorsFile's (torch-free, so
// that the fuzzer covers them); this file only maps dtypes and fills tensors.
//
// Contract:
//  - readTensor(file, entry): a new contiguous CPU tensor of the entry's shape and dtype
//    holding its bytes exactly as stored (F16 and BF16 keep their bit patterns; nothing
//    is converted here). The memory is allocated from the entry's byte count, which
//    SafetensorsFile checked against the file's size.
//  - Dtypes read: F32, F16, BF16, U8, I64, I32. Any other (F64, I8, I16, U16, U32, U64,
//    BOOL, F8_*, C64) throws InputError "PATH: tensor "x" is F64; AmpScope reads F32,
//    F16, BF16, U8, I64 and I32", naming the tensor and the dtype.
//  - readSafetensors(path, names): the named tensors, read one range at a time (the rest of
//    the file is never read); all of them when names is empty. A name the file does not
//    hold throws InputError listing the names it does hold.
#include <torch/torch.h>

#include <map>
#include <string>
#include <vector>

#include "data/SafetensorsFile.h"

namespace ampscope {

// The torch dtype of a safetensors dtype name; false when AmpScope does not read it.
bool torchDtypeOf(const std::string& dtype, torch::ScalarType& out);
// The dtypes AmpScope reads, for messages: "F32, F16, BF16, U8, I64 and I32".
const char* readableSafetensorsDtypes();

torch::Tensor readTensor(const SafetensorsFile& file, const SafetensorsEntry& entry);

std::map<std::string, torch::Tensor> readSafetensors(const std::string& path,
                                                     const std::vector<std::string>& names = {});

}  // namespace ampscope
