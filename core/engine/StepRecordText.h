#pragma once
// The step record's fast text writer and parser now live with its one field list in
// run/StepRecordCodec.h; this header stays for the files that still include it.
#include "run/StepRecordCodec.h"
