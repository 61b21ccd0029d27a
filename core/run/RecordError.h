#pragma once
// Plain. The error a run-directory record that cannot be read throws:
// "<record> record: <what is wrong>" (RecordCodec.h builds the words).
#include <stdexcept>

namespace ampscope {

class RecordError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace ampscope
