#include "views/LayerOrder.h"

#include <nlohmann/json.hpp>

namespace ampscope::ui {

bool LayerOrder::takeRunInfo(const nlohmann::json& record) {
    const auto it = record.find("layers");
    if (it == record.end() || !it->is_array()) return false;
    QStringList ordered;
    for (const auto& name : *it)
        if (name.is_string()) ordered << QString::fromStdString(name.get<std::string>());
    for (const QString& known : names_)
        if (!ordered.contains(known)) ordered << known;
    if (ordered == names_) return false;
    names_ = ordered;
    return true;
}

bool LayerOrder::add(const QString& name) {
    if (name.isEmpty() || names_.contains(name)) return false;
    names_ << name;
    return true;
}

}  // namespace ampscope::ui
