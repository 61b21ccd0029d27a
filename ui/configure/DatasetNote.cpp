#include "configure/DatasetNote.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace ampscope::ui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("ampscope::ui::ConfigPanel", text);
}

bool hasIdxFiles(const QString& directory) {
    const QDir dir(directory);
    return !dir.entryList({QStringLiteral("*-idx?-ubyte*")}, QDir::Files).isEmpty();
}

}  // namespace

QString datasetNote(const RunConfig& config, const QString& fashionMnistDirectory) {
    const QString path = QString::fromStdString(config.data.path);
    const std::string& dataset = config.data.dataset;
    if (dataset == "tensors" && !path.isEmpty())
        return QFileInfo(path).isFile() ? QString() : tr("%1 does not exist.").arg(path);
    if ((dataset == "fashion_mnist" || dataset == "mnist_idx") && !path.isEmpty()) {
        if (!QDir(path).exists()) return tr("%1 does not exist.").arg(path);
        if (!hasIdxFiles(path)) return tr("%1 holds no *-idx?-ubyte[.gz] files.").arg(path);
        return QString();
    }
    if (dataset == "fashion_mnist" && !QDir(fashionMnistDirectory).exists())
        return tr("FashionMNIST is not installed at %1: install dataset-fashion-mnist or pick "
                  "IDX files; synthetic sets work without it.")
            .arg(fashionMnistDirectory);
    return QString();
}

}  // namespace ampscope::ui
