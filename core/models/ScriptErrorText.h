#pragma once
// The words of a LibTorch error that a user should see, and what a TorchScript file that
// this build's LibTorch cannot load needs. Plain strings (no torch), so that every shape
// of message LibTorch versions produce can be tested without producing it.
#include <string>

namespace ampscope {

// The one line of a LibTorch message that says what went wrong. LibTorch's messages
// may open with a blank line ("\nUnknown builtin op: ..."), put the interpreter's
// traceback before the error ("RuntimeError: ..." last), or source excerpts and
// suggestions after it. "" when the message holds no text at all.
std::string meaningfulErrorLine(const std::string& message);

// For a message LibTorch gave when it could not load a TorchScript file: when it names
// an operator, a type or a file format version this LibTorch lacks, the refusal's text
// (one line, after "model.path: FILE: "), naming that op or construct, the build's
// LibTorch version (torchVersion, "1.13.0") and which build loads the file. "" when the
// message names nothing of the kind.
std::string newerPyTorchRefusal(const std::string& message, const std::string& torchVersion);

}  // namespace ampscope
