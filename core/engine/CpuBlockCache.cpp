#include "engine/CpuBlockCache.h"

#include <c10/core/CPUAllocator.h>

#include "common/TorchCompat.h"
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

namespace ampscope::cpu_block_cache {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitizerBuild = true;
#else
constexpr bool kSanitizerBuild = false;
#endif

constexpr size_t kAlignment = 64;  // c10::gAlignment on x86-64
constexpr size_t kGranule = 4096;

// Used by the allocator below, which exists only with LibTorch 1.x's allocator interface.
[[maybe_unused]] size_t roundedSize(size_t n) {
    return (n + kGranule - 1) / kGranule * kGranule;
}

int64_t defaultIdleLimit() {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGESIZE);
    const int64_t physical = pages > 0 && pageSize > 0 ? static_cast<int64_t>(pages) * pageSize : 0;
    constexpr int64_t kCeiling = int64_t{4} << 30;
    return physical > 0 ? std::min(physical / 4, kCeiling) : int64_t{1} << 30;
}

// Every block carries a header of kAlignment bytes in front of the tensor's
// data that holds its (rounded) size: LibTorch's raw_allocate/raw_deallocate
// require the context to be the data pointer itself, so the size cannot live
// in a separate context object. A size of 0 marks a small block that is not
// cached.
constexpr size_t kHeader = kAlignment;

size_t& headerOf(void* data) {
    return *reinterpret_cast<size_t*>(static_cast<char*>(data) - kHeader);
}

void* systemAllocate(size_t bytes, size_t recordedSize) {
    void* base = nullptr;
    if (posix_memalign(&base, kAlignment, bytes + kHeader) != 0) return nullptr;
    void* data = static_cast<char*>(base) + kHeader;
    headerOf(data) = recordedSize;
    return data;
}

void systemFree(void* data) {
    std::free(static_cast<char*>(data) - kHeader);
}

// Worded as LibTorch's own CPU allocator words it, so the user sees the same
// one line whichever allocator ran out.
[[noreturn]] void throwOutOfMemory(size_t bytes) {
    TORCH_CHECK(false, "can't allocate memory: you tried to allocate ", bytes, " bytes");
    throw std::bad_alloc();  // not reached: TORCH_CHECK(false) throws
}

class Cache {
public:
    void* take(size_t bytes) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            auto it = idle_.find(bytes);
            if (it != idle_.end() && !it->second.empty()) {
                void* data = it->second.back();
                it->second.pop_back();
                idleBytes_ -= static_cast<int64_t>(bytes);
                ++hits_;
                countInUse(static_cast<int64_t>(bytes));
                return data;
            }
            ++misses_;
        }
        void* data = systemAllocate(bytes, bytes);
        if (!data) {
            // The system is out of memory: what we hold idle may be enough.
            releaseIdle();
            data = systemAllocate(bytes, bytes);
        }
        if (!data) throwOutOfMemory(bytes);
        std::lock_guard<std::mutex> lock(mutex_);
        countInUse(static_cast<int64_t>(bytes));
        return data;
    }

    void give(void* data) {
        const size_t bytes = headerOf(data);
        if (bytes != 0) {
            std::lock_guard<std::mutex> lock(mutex_);
            inUseBytes_ -= static_cast<int64_t>(bytes);
            if (idleBytes_ + static_cast<int64_t>(bytes) <= idleLimit_) {
                idle_[bytes].push_back(data);
                idleBytes_ += static_cast<int64_t>(bytes);
                return;
            }
        }
        systemFree(data);
    }

    int64_t releaseIdle() {
        std::unordered_map<size_t, std::vector<void*>> released;
        int64_t bytes = 0;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            released.swap(idle_);
            bytes = idleBytes_;
            idleBytes_ = 0;
        }
        for (auto& [size, blocks] : released)
            for (void* data : blocks) systemFree(data);
        return bytes;
    }

    Stats stats() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return {hits_, misses_, idleBytes_, idleLimit_, inUseBytes_, peakInUseBytes_, peakHeldBytes_};
    }

    void resetPeaks() {
        std::lock_guard<std::mutex> lock(mutex_);
        peakInUseBytes_ = inUseBytes_;
        peakHeldBytes_ = inUseBytes_ + idleBytes_;
    }

    void setIdleLimit(int64_t bytes) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            idleLimit_ = std::max<int64_t>(0, bytes);
            if (idleBytes_ <= idleLimit_) return;
        }
        releaseIdle();
    }

private:
    // Under mutex_.
    void countInUse(int64_t bytes) {
        inUseBytes_ += bytes;
        peakInUseBytes_ = std::max(peakInUseBytes_, inUseBytes_);
        peakHeldBytes_ = std::max(peakHeldBytes_, inUseBytes_ + idleBytes_);
    }

    mutable std::mutex mutex_;
    std::unordered_map<size_t, std::vector<void*>> idle_;
    int64_t idleBytes_ = 0;
    int64_t idleLimit_ = defaultIdleLimit();
    int64_t hits_ = 0, misses_ = 0;
    int64_t inUseBytes_ = 0, peakInUseBytes_ = 0, peakHeldBytes_ = 0;
};

// Never destroyed: tensors freed during static destruction still return here.
Cache& cache() {
    static Cache* instance = new Cache;
    return *instance;
}

[[maybe_unused]] void giveBack(void* data) {
    if (data) cache().give(data);
}

#if AMPSCOPE_TORCH_CPU_ALLOCATOR_1X
class CachingCpuAllocator final : public c10::Allocator {
public:
    c10::DataPtr allocate(size_t n) const override {
        const c10::Device cpu(c10::DeviceType::CPU);
        if (n == 0) return {nullptr, nullptr, &giveBack, cpu};
        void* data = nullptr;
        if (n < kMinCachedBytes) {
            data = systemAllocate(n, 0);
            if (!data) throwOutOfMemory(n);
        } else {
            data = cache().take(roundedSize(n));
        }
        return {data, data, &giveBack, cpu};
    }
    c10::DeleterFnPtr raw_deleter() const override { return &giveBack; }
};
#endif

std::once_flag installOnce;
bool installedFlag = false;

}  // namespace

bool install() {
    std::call_once(installOnce, [] {
        if (kSanitizerBuild) return;
        const char* setting = std::getenv("AMPSCOPE_CPU_BLOCK_CACHE");
        if (setting && std::strcmp(setting, "0") == 0) return;
#if AMPSCOPE_TORCH_CPU_ALLOCATOR_1X
        static auto* allocator = new CachingCpuAllocator;
        // Priority above LibTorch's default (0), so a later default
        // registration cannot displace it.
        c10::SetCPUAllocator(allocator, 1);
        installedFlag = true;
#endif
    });
    return installedFlag;
}

bool installed() {
    return installedFlag;
}

Stats stats() {
    return cache().stats();
}

void setIdleLimit(int64_t bytes) {
    cache().setIdleLimit(bytes);
}

int64_t releaseIdle() {
    return cache().releaseIdle();
}

void resetPeaks() {
    cache().resetPeaks();
}

}  // namespace ampscope::cpu_block_cache
