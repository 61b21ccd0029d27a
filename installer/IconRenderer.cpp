// ampscope-render-icon: build-time tool that rasterises the one drawing of the app icon
// (resources/icons/ampscope.svg) into the PNG sizes of the hicolor icon theme, so the raster
// icons can never drift from the SVG. Run by installer/DesktopIntegration.cmake:
//   ampscope-render-icon ICON.svg OUTPUT_DIR NAME SIZE...
// writes OUTPUT_DIR/<SIZE>x<SIZE>/apps/NAME.png for each SIZE. Needs no display: it paints
// into a QImage, which needs no QGuiApplication.
#include <QDir>
#include <QImage>
#include <QPainter>
#include <QString>
#include <QSvgRenderer>
#include <cstdio>

namespace {

int fail(const QString& message) {
    std::fprintf(stderr, "ampscope-render-icon: %s\n", message.toLocal8Bit().constData());
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 5)
        return fail(QStringLiteral("usage: ampscope-render-icon ICON.svg OUTPUT_DIR NAME SIZE..."));
    const QString svgPath = QString::fromLocal8Bit(argv[1]);
    const QString outputDir = QString::fromLocal8Bit(argv[2]);
    const QString name = QString::fromLocal8Bit(argv[3]);

    QSvgRenderer renderer(svgPath);
    if (!renderer.isValid()) return fail(svgPath + QStringLiteral(": not a valid SVG file"));

    for (int i = 4; i < argc; ++i) {
        bool ok = false;
        const int size = QString::fromLocal8Bit(argv[i]).toInt(&ok);
        if (!ok || size < 1 || size > 4096)
            return fail(QStringLiteral("size '%1': expected an integer from 1 to 4096")
                            .arg(QString::fromLocal8Bit(argv[i])));
        // Transparent background: the icon's rounded corners must not show a square.
        QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::transparent);
        {
            QPainter painter(&image);
            painter.setRenderHint(QPainter::Antialiasing);
            painter.setRenderHint(QPainter::SmoothPixmapTransform);
            renderer.render(&painter, QRectF(0, 0, size, size));
        }
        const QString directory = QStringLiteral("%1/%2x%2/apps").arg(outputDir).arg(size);
        if (!QDir().mkpath(directory)) return fail(directory + QStringLiteral(": cannot create"));
        const QString pngPath = directory + QLatin1Char('/') + name + QStringLiteral(".png");
        if (!image.save(pngPath, "PNG")) return fail(pngPath + QStringLiteral(": cannot write"));
    }
    return 0;
}
