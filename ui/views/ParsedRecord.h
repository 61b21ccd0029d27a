#pragma once
// One rule for every view that reads probe records: a record that does not parse is
// skipped with one warning naming the view, and the view goes on with the next one
// (a damaged line in a recorded run must not close a dock).
#include <exception>
#include <optional>
#include <utility>

#include <QtCore/QtGlobal>
#include <nlohmann/json.hpp>

namespace ampscope {

template <class Parse>
auto parsedRecord(const char* view, const nlohmann::json& record, Parse&& parse)
    -> std::optional<decltype(parse(record))> {
    try {
        return parse(record);
    } catch (const std::exception& e) {
        qWarning("%s: skipped a record: %s", view, e.what());
        return std::nullopt;
    }
}

}  // namespace ampscope
