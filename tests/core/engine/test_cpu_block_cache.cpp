// The engine's CPU block cache (engine/CpuBlockCache.h): a freed large block is
// handed to the next allocation of the same rounded size; small blocks are not
// cached; idle bytes stay under the limit; releaseIdle gives everything back;
// tensor contents are unaffected and concurrent use is safe.
#include <QtTest/QtTest>
#include <torch/torch.h>

#include <thread>
#include <vector>

#include "ExactCompare.h"
#include "engine/CpuBlockCache.h"

using namespace ampscope;

class TestCpuBlockCache : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        if (!cpu_block_cache::install())
            QSKIP("the CPU block cache is not installed in this build (sanitizers, or "
                  "AMPSCOPE_CPU_BLOCK_CACHE=0)");
        QVERIFY(cpu_block_cache::installed());
        cpu_block_cache::setIdleLimit(int64_t{1} << 30);
    }

    void init() { cpu_block_cache::releaseIdle(); }

    void aFreedLargeBlockIsReusedBySameSize() {
        const int64_t floats = 300000;  // 1.2 MB: cached
        const void* first = nullptr;
        {
            auto t = torch::ones({floats});
            first = t.data_ptr();
        }
        const auto before = cpu_block_cache::stats();
        QCOMPARE(before.idleBytes, int64_t(floats * 4 + 4095) / 4096 * 4096);
        auto again = torch::zeros({floats});
        QCOMPARE(static_cast<const void*>(again.data_ptr()), first);
        const auto after = cpu_block_cache::stats();
        QCOMPARE(after.hits, before.hits + 1);
        QCOMPARE(after.idleBytes, int64_t(0));
        // The reused block holds what the new tensor says, not the old ones.
        QCOMPARE_BITS(again.sum().item<double>(), 0.0);
        // 64-byte alignment, as LibTorch's own allocator gives.
        QCOMPARE(reinterpret_cast<uintptr_t>(again.data_ptr()) % 64, uintptr_t(0));
    }

    void sizesWithinOnePageShareABlock() {
        // Rounded up to 4 KiB: 1,200,000 and 1,200,004 bytes need the same block.
        const void* first = nullptr;
        {
            auto t = torch::empty({300000});
            first = t.data_ptr();
        }
        auto t = torch::empty({300001});
        QCOMPARE(static_cast<const void*>(t.data_ptr()), first);
    }

    void aDifferentSizeMissesTheCache() {
        { auto t = torch::empty({300000}); }
        const auto before = cpu_block_cache::stats();
        auto other = torch::empty({600000});
        const auto after = cpu_block_cache::stats();
        QCOMPARE(after.misses, before.misses + 1);
        QCOMPARE(after.hits, before.hits);
        QCOMPARE(after.idleBytes, before.idleBytes);  // the 1.2 MB block still waits
    }

    void smallBlocksAreNotCached() {
        const auto before = cpu_block_cache::stats();
        {
            auto t = torch::empty({int64_t(cpu_block_cache::kMinCachedBytes / 4 - 1)});
            t.fill_(1.0f);
        }
        const auto after = cpu_block_cache::stats();
        QCOMPARE(after.idleBytes, before.idleBytes);
        QCOMPARE(after.misses, before.misses);
    }

    void idleBytesStayUnderTheLimit() {
        cpu_block_cache::setIdleLimit(3 << 20);  // 3 MiB
        {
            std::vector<torch::Tensor> blocks;
            for (int i = 0; i < 4; ++i) blocks.push_back(torch::empty({262144}));  // 1 MiB each
        }
        const auto s = cpu_block_cache::stats();
        QCOMPARE(s.idleLimit, int64_t(3 << 20));
        QCOMPARE(s.idleBytes, int64_t(3 << 20));  // three kept, the fourth released
        cpu_block_cache::setIdleLimit(1 << 20);    // lowering the limit releases at once
        QCOMPARE(cpu_block_cache::stats().idleBytes, int64_t(0));
        cpu_block_cache::setIdleLimit(int64_t{1} << 30);
    }

    void releaseIdleGivesEverythingBack() {
        {
            auto a = torch::empty({262144});
            auto b = torch::empty({524288});
        }
        QCOMPARE(cpu_block_cache::stats().idleBytes, int64_t(3 << 20));
        QCOMPARE(cpu_block_cache::releaseIdle(), int64_t(3 << 20));
        QCOMPARE(cpu_block_cache::stats().idleBytes, int64_t(0));
    }

    void trainingArithmeticIsUnchanged() {
        // A matmul chain through cached blocks gives what the same chain gives
        // again (blocks reused between the two), bit for bit.
        torch::manual_seed(3);
        const auto a = torch::randn({256, 512});
        const auto b = torch::randn({512, 384});
        const auto first = torch::relu(a.matmul(b)).matmul(b.t());
        const auto second = torch::relu(a.matmul(b)).matmul(b.t());
        QVERIFY(torch::equal(first, second));
        QVERIFY(cpu_block_cache::stats().hits > 0);
    }

    void concurrentUseIsSafe() {
        std::vector<std::thread> threads;
        std::atomic<int> wrong{0};
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([t, &wrong] {
                for (int i = 0; i < 200; ++i) {
                    auto x = torch::full({int64_t(100000 + 1024 * (i % 5))}, float(t));
                    if (x.sum().item<double>() != double(t) * double(x.numel())) ++wrong;
                }
            });
        for (auto& th : threads) th.join();
        QCOMPARE(wrong.load(), 0);
    }
};

QTEST_GUILESS_MAIN(TestCpuBlockCache)
#include "test_cpu_block_cache.moc"
