// Exact comparisons for the suites whose claims are exact rounding, flushing or bits.
//
// Qt's QCOMPARE on float and double is fuzzy: qFuzzyCompare allows a relative 1e-5
// (float) or 1e-12 (double), and two values both under 1e-5 / 1e-12 in magnitude compare
// equal, so a flushed 0 passes for 2^-20 and a scale stuck at 1e-30 passes for 0.
// Including this header (after QtTest) makes QCOMPARE refuse float and double operands
// at compile time. What a suite uses instead:
//   QCOMPARE_BITS(actual, expected)  the same bits (so +0 and -0 differ; any NaN matches
//                                    any NaN: a NaN's payload is not what these suites test);
//   QVERIFY with a stated tolerance  where the claim is "close", not "equal".
// tests/tools/check_exact_compares.sh checks that every precision suite includes it.
#pragma once

#include <QtTest/QtTest>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>

namespace ampscope::test {

template <typename T>
inline constexpr bool kIsFloating = std::is_floating_point_v<std::remove_cvref_t<T>> ||
                                    std::is_same_v<std::remove_cvref_t<T>, qfloat16>;

template <typename T>
using BitsOf = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;

template <typename T>
bool sameBits(T actual, T expected) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
    if (std::isnan(actual) && std::isnan(expected)) return true;
    return std::bit_cast<BitsOf<T>>(actual) == std::bit_cast<BitsOf<T>>(expected);
}

// "1.5 (0x1.8p+0, bits 0x3fc00000)": the decimal, the exact value and the bits.
template <typename T>
std::string describeBits(T value) {
    char text[96];
    std::snprintf(text, sizeof text, "%.9g (%a, bits 0x%llx)", static_cast<double>(value),
                  static_cast<double>(value),
                  static_cast<unsigned long long>(std::bit_cast<BitsOf<T>>(value)));
    return text;
}

template <typename A, typename E>
bool compareBits(A actual, E expected, const char* actualText, const char* expectedText,
                 const char* file, int line) {
    static_assert(std::is_same_v<A, E>,
                  "QCOMPARE_BITS compares operands of one type: cast the expected value, "
                  "which states which format the claim is about");
    if (sameBits(actual, expected)) return true;
    const std::string message = std::string("Compared values do not have the same bits\n   Actual   (") +
                                actualText + "): " + describeBits(actual) + "\n   Expected (" +
                                expectedText + "): " + describeBits(expected);
    QTest::qFail(message.c_str(), file, line);
    return false;
}

}  // namespace ampscope::test

#define QCOMPARE_BITS(actual, expected)                                                        \
    do {                                                                                       \
        if (!::ampscope::test::compareBits(actual, expected, #actual, #expected, __FILE__, __LINE__)) \
            return;                                                                            \
    } while (false)

#undef QCOMPARE
#define QCOMPARE(actual, expected)                                                              \
    do {                                                                                        \
        static_assert(!::ampscope::test::kIsFloating<decltype(actual)> &&                       \
                          !::ampscope::test::kIsFloating<decltype(expected)>,                   \
                      "QCOMPARE on float or double is fuzzy here: QCOMPARE_BITS compares bits, " \
                      "QVERIFY with a tolerance says how close");                               \
        if (!QTest::qCompare(actual, expected, #actual, #expected, __FILE__, __LINE__))         \
            return;                                                                             \
    } while (false)
