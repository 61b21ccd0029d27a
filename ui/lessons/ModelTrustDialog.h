#pragma once
// The question a lesson's TorchScript model needs before it is loaded: a TorchScript file is
// code and runs as the user, so the window names each file and its SHA-256 (to compare
// with what the lesson's author gave) and loads nothing unless the user says yes. "No" is
// the default button; the answer is not remembered (ScenarioBrowser asks each time).
#include <QString>
#include <vector>

#include "scenarios/LessonFolder.h"

class QWidget;

namespace ampscope::ui {

bool askModelTrust(QWidget* parent, const QString& lesson, const std::vector<LessonModel>& models);

}  // namespace ampscope::ui
