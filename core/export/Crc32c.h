#pragma once
// CRC-32C (Castagnoli polynomial, reflected 0x82F63B78), as TFRecord files use it, and
// TFRecord's "masked" form: ((crc >> 15) | (crc << 17)) + 0xa282ead8, which keeps a CRC
// of data that itself holds CRCs from being a CRC of a CRC.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ampscope {

uint32_t crc32c(std::string_view bytes);
uint32_t maskCrc32c(uint32_t crc);
uint32_t unmaskCrc32c(uint32_t masked);

}  // namespace ampscope
