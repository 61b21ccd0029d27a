// Which rank of a torch.distributed job a NaN came from (run/JobNonFiniteOrigin.h): the
// sentence the window's job view and the report of a job show.
#include <QtCore/QDir>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <fstream>

#include <string>
#include <vector>

#include "ExactCompare.h"
#include "run/JobNonFiniteOrigin.h"
#include "run/RunReader.h"

using ampscope::NonFiniteEvent;
using ampscope::RankNonFinite;

namespace {

NonFiniteEvent own(long long step, const char* layer, const char* phase) {
    NonFiniteEvent e;
    e.step = step;
    e.layer = layer;
    e.phase = phase;
    e.tensor = "activation";
    return e;
}

NonFiniteEvent received(long long step) {
    NonFiniteEvent e;
    e.step = step;
    e.layer = "body.0";
    e.phase = "backward";
    e.tensor = "param_grad";
    e.via = "gradient_allreduce";
    return e;
}

QString origin(const std::vector<RankNonFinite>& ranks) {
    return QString::fromStdString(ampscope::jobNonFiniteOrigin(ranks));
}

}  // namespace

class TestJobNonFiniteOrigin : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void namesTheRankItCameFromAndTheRanksThatReceivedIt() {
        // The two-rank job of the recorder's suite: rank 1's body.2 output went NaN at step 15.
        QCOMPARE(origin({{0, received(15)}, {1, own(15, "body.2", "forward")}}),
                 QStringLiteral("rank 1 went non-finite first, at step 15 in body.2 (forward); "
                                "rank 0 received it through the gradient all-reduce at step 15"));
    }

    void groupsTheRanksThatReceivedItAtOneStep() {
        QCOMPARE(origin({{3, received(15)}, {0, received(15)}, {2, received(15)},
                         {1, own(15, "fc", "backward")}}),
                 QStringLiteral("rank 1 went non-finite first, at step 15 in fc (backward); "
                                "ranks 0, 2 and 3 received it through the gradient all-reduce at step 15"));
    }

    void aRankThatWentNonFiniteOnItsOwnLaterIsNamedAfter() {
        QCOMPARE(origin({{0, own(40, "head", "forward")}, {1, own(12, "body.0", "forward")}, {2, std::nullopt}}),
                 QStringLiteral("rank 1 went non-finite first, at step 12 in body.0 (forward); "
                                "rank 0 went non-finite at step 40 in head (forward)"));
    }

    void ranksThatWentNonFiniteAtTheSameStepAreAllOrigins() {
        QCOMPARE(origin({{1, own(7, "b", "backward")}, {0, own(7, "a", "forward")}}),
                 QStringLiteral("ranks 0 and 1 went non-finite first, at step 7: rank 0 in a (forward), "
                                "rank 1 in b (backward)"));
    }

    void anArrivalBeforeAnyOwnEventMeansTheOriginWasNotRecorded() {
        QCOMPARE(origin({{0, received(9)}, {1, received(9)}}),
                 QStringLiteral("no recorded rank went non-finite on its own first; ranks 0 and 1 received "
                                "non-finite gradients through the gradient all-reduce at step 9"));
        // A rank that recorded nothing (its recorder missed it, or it had none) sent it at
        // step 9; rank 2's own NaN at step 12 is not the origin.
        QCOMPARE(origin({{0, received(9)}, {1, received(9)}, {2, own(12, "head", "forward")}}),
                 QStringLiteral("no recorded rank went non-finite on its own first; ranks 0 and 1 received "
                                "non-finite gradients through the gradient all-reduce at step 9; "
                                "rank 2 went non-finite at step 12 in head (forward)"));
    }

    // Ranks recorded without the non-finite probe: the losses are all there is to go by.
    // The earliest non-finite loss names its rank (all of them, at a tie), never a later one.
    void withoutARecordTheFirstNonFiniteLossNamesItsRank() {
        QCOMPARE(origin({{0, std::nullopt, std::nullopt}, {7, std::nullopt, 30}, {3, std::nullopt, 31}}),
                 QStringLiteral("no rank recorded where it went non-finite; the loss went non-finite first on "
                                "rank 7, at step 30"));
        QCOMPARE(origin({{9, std::nullopt, 12}, {2, std::nullopt, 12}, {5, std::nullopt, 40}}),
                 QStringLiteral("no rank recorded where it went non-finite; the loss went non-finite first on "
                                "ranks 2 and 9, at step 12"));
        // A record says where it arose, so the records make the sentence; a loss that went
        // non-finite before every record (a probe missed it) is said after them.
        QCOMPARE(origin({{0, std::nullopt, 5}, {1, own(15, "body.2", "forward"), 15}}),
                 QStringLiteral("rank 1 went non-finite first, at step 15 in body.2 (forward); "
                                "the loss went non-finite earlier on rank 0, at step 5, with no record of where"));
        QCOMPARE(origin({{0, std::nullopt, 15}, {1, own(15, "body.2", "forward"), 15}}),
                 QStringLiteral("rank 1 went non-finite first, at step 15 in body.2 (forward)"));
    }

    void nothingNonFiniteSaysNothing() {
        QCOMPARE(origin({{0, std::nullopt}, {1, std::nullopt}}), QString());
        QCOMPARE(origin({}), QString());
    }

    void readsAJobFolderOnDisk() {
        QTemporaryDir tmp;
        const auto rankDir = [&](int rank, const std::string& extra) {
            const std::string dir = tmp.filePath(QStringLiteral("job/rank-%1").arg(rank)).toStdString();
            QDir().mkpath(QString::fromStdString(dir));
            std::ofstream(dir + "/config.json") << R"({"schema_version": 1})";
            std::ofstream(dir + "/events.jsonl")
                << "{\"type\":\"run_start\",\"schema_version\":1}\n"
                   "{\"type\":\"step\",\"step\":14,\"loss\":0.5}\n"
                << extra << "{\"type\":\"step\",\"step\":16,\"loss\":null}\n";
            return dir;
        };
        const std::string common =
            "\"layer_index\":0,\"nan\":1,\"neg_inf\":0,\"numel\":64,\"pos_inf\":0,\"step\":15,"
            "\"type\":\"nonfinite\",\"frames\":[]";
        const std::vector<std::string> ranks{
            rankDir(0, "{\"layer\":\"body.0\",\"phase\":\"backward\",\"tensor\":\"param_grad\","
                       "\"via\":\"gradient_allreduce\"," + common + "}\n"),
            rankDir(1, "{\"layer\":\"body.2\",\"phase\":\"forward\",\"tensor\":\"activation\"," + common + "}\n")};
        QCOMPARE(QString::fromStdString(ampscope::jobNonFiniteOriginOf(ranks)),
                 QStringLiteral("rank 1 went non-finite first, at step 15 in body.2 (forward); "
                                "rank 0 received it through the gradient all-reduce at step 15"));
    }

    void readsTheRankFromItsDirectory() {
        QCOMPARE(ampscope::rankOfDirectory("/runs/job/rank-12"), 12LL);
        QCOMPARE(ampscope::rankOfDirectory("rank-0/"), 0LL);
        QCOMPARE(ampscope::rankOfDirectory("/runs/job/rank-x"), -1LL);
        QCOMPARE(ampscope::rankOfDirectory("/runs/job"), -1LL);
        // Up to nine digits (no job has a billion ranks); a longer run of digits is no
        // rank directory, -1, rather than a number std::stoll may not hold.
        QCOMPARE(ampscope::rankOfDirectory("rank-123456789"), 123456789LL);
        QCOMPARE(ampscope::rankOfDirectory("rank-1234567890"), -1LL);
        QCOMPARE(ampscope::rankOfDirectory("rank-99999999999999999999"), -1LL);
    }
};

QTEST_GUILESS_MAIN(TestJobNonFiniteOrigin)
#include "test_job_nonfinite_origin.moc"
