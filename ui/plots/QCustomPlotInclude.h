#pragma once
// The one way the project includes qcustomplot.h. That header is written with Qt's
// keyword macros (signals, slots, emit, foreach), which this project turns off with
// QT_NO_KEYWORDS because they clash with ATen's headers. They are defined for this
// header only and removed again right after.
#ifndef signals
#define signals Q_SIGNALS
#define AMPSCOPE_UNDEF_SIGNALS
#endif
#ifndef slots
#define slots Q_SLOTS
#define AMPSCOPE_UNDEF_SLOTS
#endif
#ifndef emit
#define emit Q_EMIT
#define AMPSCOPE_UNDEF_EMIT
#endif
#ifndef foreach
#define foreach Q_FOREACH
#define AMPSCOPE_UNDEF_FOREACH
#endif

#include <qcustomplot.h>

#ifdef AMPSCOPE_UNDEF_SIGNALS
#undef signals
#undef AMPSCOPE_UNDEF_SIGNALS
#endif
#ifdef AMPSCOPE_UNDEF_SLOTS
#undef slots
#undef AMPSCOPE_UNDEF_SLOTS
#endif
#ifdef AMPSCOPE_UNDEF_EMIT
#undef emit
#undef AMPSCOPE_UNDEF_EMIT
#endif
#ifdef AMPSCOPE_UNDEF_FOREACH
#undef foreach
#undef AMPSCOPE_UNDEF_FOREACH
#endif
