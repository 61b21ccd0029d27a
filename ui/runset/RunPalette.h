#pragma once
// RunPalette: the one colour rule for runs, shared by every view of the window and by
// reports, so that a run reads in the same colour in the loss overlay, the histograms
// side by side, the run list and a report's pages.
//
// Contract:
// - A run gets a slot when it joins a set: the lowest slot no run of the set holds
//   (firstFreeSlot). It keeps that slot, and so its colour, while runs are added and
//   removed around it; a removed run's slot is free for the next one.
// - colour(slot): kColourCount colours that stay apart on white and in print (the ten
//   of Tableau's "Tableau 10" palette, in its order: blue and orange first, the pair that
//   reads apart even to the colour-blind); a slot past the last wraps around.
// - A report of runs A, B, C gives them slots 0, 1, 2: the colours the window gives
//   them when it opens them in that order.
// Header only (QColor from Qt Gui, nothing else) so that any file can use it.
#include <QColor>
#include <algorithm>
#include <array>
#include <vector>

namespace ampscope::ui::run_palette {

inline constexpr int kColourCount = 10;

inline QColor colour(int slot) {
    static const std::array<QRgb, kColourCount> kColours = {
        0x1f77b4,  // blue
        0xff7f0e,  // orange
        0x2ca02c,  // green
        0xd62728,  // red
        0x9467bd,  // purple
        0x8c564b,  // brown
        0xe377c2,  // pink
        0x7f7f7f,  // grey
        0xbcbd22,  // olive
        0x17becf,  // cyan
    };
    const int index = ((slot % kColourCount) + kColourCount) % kColourCount;
    return QColor::fromRgb(kColours[static_cast<std::size_t>(index)]);
}

// The lowest slot not in `taken` (a set's runs' slots, in any order).
inline int firstFreeSlot(const std::vector<int>& taken) {
    int slot = 0;
    while (std::find(taken.begin(), taken.end(), slot) != taken.end()) ++slot;
    return slot;
}

// A lighter shade of a run's colour, for its raw (unsmoothed) line under its smoothed one.
inline QColor faint(const QColor& colour, int alpha = 90) {
    QColor c = colour;
    c.setAlpha(alpha);
    return c;
}

}  // namespace ampscope::ui::run_palette
