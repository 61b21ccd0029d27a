// core/stats/SeedGroups: which runs are seeds of one config, checked on hand-made config
// documents shaped as config.json is (top-level "name" and "seed", nested sections).
#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "stats/SeedGroups.h"

using ampscope::stats::seedGroups;
using nlohmann::json;
using Groups = std::vector<std::vector<std::size_t>>;

namespace {

// A config as `ampscope-cli run --seeds` writes it: the run named after its seed.
json config(const std::string& mode, std::uint64_t seed, const std::string& name = "") {
    return json{{"name", name.empty() ? "mlp-" + mode + " seed " + std::to_string(seed) : name},
                {"seed", seed},
                {"precision", {{"mode", mode}}},
                {"model", {{"name", "mlp"}, {"hidden", {16}}}},
                {"optim", {{"name", "adam"}, {"lr", 0.01}}},
                {"train", {{"epochs", 2}, {"batch_size", 32}}}};
}

}  // namespace

class SeedGroupsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void theSameConfigWithDifferentSeedsIsOneGroup() {
        QCOMPARE(seedGroups({config("fp32", 7), config("fp32", 8), config("fp32", 9)}), (Groups{{0, 1, 2}}));
    }

    void aGroupIsNamedAfterItsConfigWithoutTheSeed() {
        using ampscope::stats::seedGroupName;
        QCOMPARE(seedGroupName("mlp-fp32 seed 7", "seed-1"), std::string("mlp-fp32"));
        QCOMPARE(seedGroupName("", "reference-seed-12"), std::string("reference"));
        QCOMPARE(seedGroupName("fp16_seed_3", "x"), std::string("fp16"));
        QCOMPARE(seedGroupName("seed 3", "mxfp4 - seed - 2"), std::string("mxfp4"));
        // Digits that do not follow "seed" are part of the name.
        QCOMPARE(seedGroupName("resnet50", "x"), std::string("resnet50"));
        QCOMPARE(seedGroupName("run-3", "x"), std::string("run-3"));
        QCOMPARE(seedGroupName("seed 3", "seed-4"), std::string("seed-4"));
    }

    void aDifferentModeIsAGroupOfItsOwn() {
        const Groups groups = seedGroups(
            {config("fp32", 7), config("mxfp4", 7), config("fp32", 8), config("mxfp4", 8), config("mxfp4", 9)});
        QCOMPARE(groups, (Groups{{0, 2}, {1, 3, 4}}));
    }

    void aSingleRunOfAConfigIsNoGroup() {
        QCOMPARE(seedGroups({config("fp32", 7)}), Groups{});
        // Two configs, one run each: no band anywhere.
        QCOMPARE(seedGroups({config("fp32", 7), config("fp16", 8)}), Groups{});
        // One run beside a group: the group alone.
        QCOMPARE(seedGroups({config("bf16", 1), config("fp32", 7), config("fp32", 8)}), (Groups{{1, 2}}));
        QCOMPARE(seedGroups({}), Groups{});
    }

    void runsNamedDifferentlyAreStillOneGroup() {
        QCOMPARE(seedGroups({config("fp32", 7, "reference"), config("fp32", 8, "my second try")}),
                 (Groups{{0, 1}}));
    }

    // What "differs only in the seed" means at the edges of the rule.
    void aNestedNameOrAnyOtherFieldSeparates() {
        json otherModel = config("fp32", 8);
        otherModel["model"]["name"] = "simple_cnn";
        json otherRate = config("fp32", 9);
        otherRate["optim"]["lr"] = 0.02;
        QCOMPARE(seedGroups({config("fp32", 7), otherModel, otherRate}), Groups{});
    }

    void aRepeatedSeedIsNotAnotherSeed() {
        // The same seed twice is the same run again: two seeds, not three.
        QCOMPARE(seedGroups({config("fp32", 7), config("fp32", 7, "again"), config("fp32", 8)}),
                 (Groups{{0, 2}}));
        // Only ever one seed: no band.
        QCOMPARE(seedGroups({config("fp32", 7), config("fp32", 7, "again")}), Groups{});
    }

    void aConfigThatIsNotAnObjectIsInNoGroup() {
        QCOMPARE(seedGroups({json(), config("fp32", 7), json("text"), config("fp32", 8)}), (Groups{{1, 3}}));
    }
};

QTEST_APPLESS_MAIN(SeedGroupsTest)
#include "test_seed_groups.moc"
