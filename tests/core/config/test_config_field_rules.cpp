// The one table of config fields' limits and help (config/ConfigFieldRules.h): every rule
// names a real config.json key, and validation refuses each ranged field exactly outside
// its rule's limits, with the message worded from the same numbers the form shows.
#include <QtTest/QtTest>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "ExactCompare.h"
#include "common/InputError.h"
#include "config/ConfigFieldRules.h"
#include "config/ConfigJson.h"
#include "config/RunConfig.h"

using namespace ampscope;
using nlohmann::json;

namespace {

QString qs(const std::string& text) { return QString::fromStdString(text); }

// A default config document with `value` at the rule's path; a list rule's value is
// the one element of its list ("model.hidden" and "probes.precision_map_steps": [value];
// "faults.step": one fault).
json withValue(const std::string& path, const json& value) {
    json document = configToJson(RunConfig{});
    if (path == "model.hidden" || path == "probes.precision_map_steps") {
        const std::size_t dot = path.find('.');
        document[path.substr(0, dot)][path.substr(dot + 1)] = json::array({value});
        return document;
    }
    if (path == "faults.step") {
        document["faults"] = json::array({{{"step", value}, {"kind", "scale_loss"}, {"layer", ""}, {"factor", 2.0}}});
        return document;
    }
    json* node = &document;
    std::string rest = path;
    for (std::size_t dot; (dot = rest.find('.')) != std::string::npos; rest = rest.substr(dot + 1))
        node = &(*node)[rest.substr(0, dot)];
    (*node)[rest] = value;
    return document;
}

// The message configFromJson refuses the document with ("" when it takes it).
std::string refusal(const json& document) {
    try {
        configFromJson(document);
    } catch (const InputError& error) {
        return error.what();
    }
    return {};
}

// The path as the message names it: a list element by its index.
std::string messagePath(const std::string& path) {
    if (path == "model.hidden" || path == "probes.precision_map_steps") return path + "[0]";
    if (path == "faults.step") return "faults[0].step";
    return path;
}

json asJson(double value, bool integer) {
    return integer ? json(static_cast<int64_t>(value)) : json(value);
}

}  // namespace

class ConfigFieldRulesTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void limitsAreWrittenAsValidationWordsThem() {
        QCOMPARE(qs(configFieldRule("train.epochs").limits->text()), QString("in [1, 100000]"));
        QCOMPARE(qs(configFieldRule("optim.lr").limits->text()), QString("in (0, 10]"));
        QCOMPARE(qs(configFieldRule("precision.scaler.growth_factor").limits->text()), QString("> 1"));
        QCOMPARE(qs(configFieldRule("optim.clip_norm").limits->text()), QString(">= 0"));
        QCOMPARE(qs(configFieldRule("precision.scaler.backoff_factor").limits->text()), QString("in (0, 1)"));
        QCOMPARE(qs(configFieldRule("precision.scaler.init_scale").limits->text()), QString("in (0, 3.4e+38]"));
        QVERIFY(!configFieldRule("precision.mode").limits.has_value());
    }

    void helpIsPathHelpAndLimits() {
        QCOMPARE(qs(configFieldHelp("train.epochs")), QString("train.epochs: passes over the training set (in [1, 100000])"));
        QCOMPARE(qs(configFieldHelp("device")),
                 QString("device: auto takes CUDA when this LibTorch sees a GPU, else the CPU"));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, configFieldRule("optim.lrr"));
    }

    // Each rule's path is a key config.json has, so no rule describes a field that is not.
    void everyRuleNamesAConfigKey() {
        const json defaults = configToJson(RunConfig{});
        for (const ConfigFieldRule& rule : configFieldRules()) {
            const std::string path(rule.path);
            QVERIFY2(!rule.help.empty(), path.c_str());
            const json* node = &defaults;
            std::string rest = path == "faults.step" ? "faults" : path;
            for (std::size_t dot; (dot = rest.find('.')) != std::string::npos; rest = rest.substr(dot + 1))
                node = &node->at(rest.substr(0, dot));
            QVERIFY2(node->contains(rest), path.c_str());
        }
    }

    // Just outside each limit: refused, naming the field with "must be <limits>"; at a
    // closed limit or just inside an open one: not refused for that field.
    void validationRefusesExactlyOutsideEachRulesLimits() {
        for (const ConfigFieldRule& rule : configFieldRules()) {
            if (!rule.limits) continue;
            const NumberLimits& limits = *rule.limits;
            const std::string path(rule.path);
            const std::string expected = messagePath(path) + ": must be " + limits.text() + " (got ";
            const double step = limits.integer ? 1.0 : 0.0;
            struct Side {
                double limit;
                LimitBound bound;
                double outward;
            };
            for (const Side side : {Side{limits.low, limits.lowBound, -1.0}, Side{limits.high, limits.highBound, 1.0}}) {
                if (!std::isfinite(side.limit)) continue;
                const auto beyond = [&](double from) {
                    return limits.integer ? from + side.outward * step
                                          : std::nextafter(from, side.outward * std::numeric_limits<double>::infinity());
                };
                const double outside = side.bound == LimitBound::Closed ? beyond(side.limit) : side.limit;
                const double inside = side.bound == LimitBound::Closed
                                          ? side.limit
                                          : (limits.integer ? side.limit - side.outward
                                                            : std::nextafter(side.limit, -side.outward * INFINITY));
                const std::string refused = refusal(withValue(path, asJson(outside, limits.integer)));
                QVERIFY2(refused.rfind(expected, 0) == 0, (path + " at " + std::to_string(outside) + ": " + refused).c_str());
                const std::string taken = refusal(withValue(path, asJson(inside, limits.integer)));
                QVERIFY2(taken.rfind(messagePath(path) + ": must be", 0) != 0,
                         (path + " at " + std::to_string(inside) + ": " + taken).c_str());
            }
        }
    }
};

QTEST_APPLESS_MAIN(ConfigFieldRulesTest)
#include "test_config_field_rules.moc"
