#pragma once
// ModuleTreeView: a user's TorchScript model as the tree of its submodules: the Module
// column holds each qualified name ("blocks.1.fc2") nested under its parent, then the
// Python type, the parameters the module holds itself and whether the run probes it as a
// layer (✓). The Configure panel shows one (filled from the file the user picked, or from
// a run's record), the NaN inspector another.
//
// Contract:
// - setModules() shows a tree from core's list (pre-order, [0] = the model itself, name
//   ""; depth says the nesting), with a caption saying where it came from. The model
//   itself reads "(model)", the name its layer has when it holds parameters of its own.
// - showRun(facts) shows a run's tree as the run set holds it (NonFiniteFacts: the run's
//   model_modules record; a zoo model's run leaves it empty). Nothing here ever loads a
//   model file: a run's tree comes from its records. The run's first non-finite value
//   marks its culprit: the module whose layer name the event carries is selected, bold
//   and red with a red marker, its parents are expanded and it is scrolled into view.
//   highlightModule() does the same by hand. The loss, or a name that is not in the
//   tree, marks nothing.
// - Clicking a module emits moduleActivated with its layer name ("(model)" for the root).
#include <QString>
#include <QWidget>
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "models/ScriptModuleInfo.h"

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace ampscope::ui {

class NonFiniteFacts;
class RunSet;

class ModuleTreeView : public QWidget {
    Q_OBJECT
public:
    // The layer name of the model itself (core's TorchScript model names it so).
    static QString modelItselfName() { return QString::fromLatin1(kRootLayerName); }
    enum Column { kModuleColumn = 0, kTypeColumn, kParametersColumn, kProbedColumn };

    explicit ModuleTreeView(QWidget* parent = nullptr);

    void setModules(const std::vector<ScriptModuleInfo>& modules, const QString& caption);
    void clear(const QString& caption = QString());
    bool isEmpty() const { return modules_.empty(); }
    const std::vector<ScriptModuleInfo>& modules() const { return modules_; }
    // Selects and marks a module by layer name; false when the tree has no such module.
    bool highlightModule(const QString& layer, const QString& why);
    QString highlightedModule() const { return highlighted_; }
    // The tree item of a layer name ("(model)" or a qualified name), or nullptr.
    QTreeWidgetItem* itemFor(const QString& layer) const;
    // The Python type of a layer name, empty when unknown.
    QString typeOf(const QString& layer) const;
    QString caption() const;
    // The width that shows every column whole (names are never elided: a module is
    // found by its name); the Module column takes any room beyond it.
    int preferredWidth() const;
    // In a form (the Configure panel): the tree is as tall as its rows, up to maxRows,
    // instead of taking what its layout gives it. 0: what the layout gives (the default).
    void setHeightForRows(int maxRows);
    QSize sizeHint() const override;

    QTreeWidget* tree() const { return tree_; }

    // A run's tree and culprit, from what the run set holds of it (empty: cleared).
    void showRun(const NonFiniteFacts& facts);
    // The focused run's tree from now on, and again whenever the focus or its records change.
    void followFocusedRun(RunSet* set);

    static QColor culpritColor();

Q_SIGNALS:
    void moduleActivated(const QString& layer);
    // The tree was filled or emptied.
    void modulesChanged();

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fitColumns();
    void fitHeight();
    void fill();

    QLabel* caption_ = nullptr;
    QTreeWidget* tree_ = nullptr;
    std::vector<ScriptModuleInfo> modules_;
    int contentWidth_ = 0;
    int heightRows_ = 0;  // the columns as wide as what they hold (fitColumns)
    QString highlighted_;
};

}  // namespace ampscope::ui
