#include "export/Crc32c.h"

#include <array>

namespace ampscope {
namespace {

constexpr uint32_t kPolynomial = 0x82F63B78u;  // reflected Castagnoli
constexpr uint32_t kMaskDelta = 0xa282ead8u;

constexpr std::array<uint32_t, 256> makeTable() {
    std::array<uint32_t, 256> table{};
    for (uint32_t i = 0; i < 256; ++i) {
        uint32_t crc = i;
        for (int bit = 0; bit < 8; ++bit) crc = (crc & 1u) ? (crc >> 1) ^ kPolynomial : crc >> 1;
        table[i] = crc;
    }
    return table;
}

constexpr std::array<uint32_t, 256> kTable = makeTable();

}  // namespace

uint32_t crc32c(std::string_view bytes) {
    uint32_t crc = 0xFFFFFFFFu;
    for (unsigned char byte : bytes) crc = kTable[(crc ^ byte) & 0xFFu] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}

uint32_t maskCrc32c(uint32_t crc) {
    return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}

uint32_t unmaskCrc32c(uint32_t masked) {
    const uint32_t rotated = masked - kMaskDelta;
    return (rotated >> 17) | (rotated << 15);
}

}  // namespace ampscope
