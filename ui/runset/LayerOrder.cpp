#include "runset/LayerOrder.h"

namespace ampscope::ui {

bool LayerOrder::takeRunInfo(const std::vector<std::string>& layers) {
    QStringList ordered;
    for (const std::string& name : layers) ordered << QString::fromStdString(name);
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
