#pragma once
// LayerOrder: the names of a run's layers in model (forward) order, for the probe views'
// choosers and rows. run_info's layer list gives the whole list; a layer a record names
// that the list lacks (a run without run_info, or "loss") is appended where it is first
// seen, so a view works from records alone.
#include <QStringList>
#include <string>
#include <vector>

namespace ampscope::ui {

class LayerOrder {
public:
    void clear() { names_.clear(); }
    // Takes run_info's layer list (RunInfoRecord::layers); true when the list changed.
    // run_info's order wins; names seen only in records follow it.
    bool takeRunInfo(const std::vector<std::string>& layers);
    // Adds a name not yet known at the end; true when it was new.
    bool add(const QString& name);

    const QStringList& names() const { return names_; }
    int indexOf(const QString& name) const { return names_.indexOf(name); }
    bool contains(const QString& name) const { return names_.contains(name); }
    bool isEmpty() const { return names_.isEmpty(); }

private:
    QStringList names_;
};

}  // namespace ampscope::ui
