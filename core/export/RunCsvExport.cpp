#include "export/RunCsvExport.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "common/InputError.h"
#include "export/CsvWriter.h"
#include "export/PrecisionMapCsv.h"
#include "probes/FormatQuantRecord.h"
#include "probes/PrecisionMapRecord.h"
#include "probes/ProbeRecords.h"
#include "run/EventSchema.h"
#include "run/RecordCodec.h"

namespace ampscope {
namespace {

constexpr const char* kPrecisionMapModulesFile = "precision_map_modules.csv";

bool isFraming(const std::string& type) {
    return type == event_type::kRunStart || type == event_type::kRunInfo || type == event_type::kRunEnd;
}

// A record type as a file name: letters, digits and '_' only, so a strange type cannot
// write outside the folder.
std::string fileStem(const std::string& type) {
    std::string stem;
    for (char c : type) stem += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    return stem.empty() ? std::string("unnamed") : stem;
}

bool isTagOf(const std::string& key, const nlohmann::json& record) {
    if (key.size() <= record_codec::kNonFiniteSuffix.size() ||
        key.compare(key.size() - record_codec::kNonFiniteSuffix.size(), record_codec::kNonFiniteSuffix.size(),
                    record_codec::kNonFiniteSuffix) != 0)
        return false;
    return record.contains(key.substr(0, key.size() - record_codec::kNonFiniteSuffix.size()));
}

// Where a record has them, these lead a flat table (JSON objects come back with sorted
// keys, so "first seen" alone would put epoch before step).
constexpr const char* kLeadColumns[] = {"step",    "epoch",     "layer",  "kind",  "tensor",
                                        "operand", "direction", "format", "recipe"};

// One flat table: columns are the records' fields in first-seen order; the
// "<key>_nonfinite" tags fold into their key's cell. Learned in a first pass over the
// records (noteColumns), written in a second (write), so no record is kept.
class FlatTable {
public:
    void noteColumns(const nlohmann::json& record) {
        for (std::size_t i = 0; i < std::size(kLeadColumns); ++i)
            if (!hasLead_[i] && record.contains(kLeadColumns[i])) hasLead_[i] = true;
        for (auto it = record.begin(); it != record.end(); ++it) {
            if (it.key() == "type" || isTagOf(it.key(), record)) continue;
            if (seen_.insert(it.key()).second) others_.push_back(it.key());
        }
    }
    void open(const std::string& path) {
        for (std::size_t i = 0; i < std::size(kLeadColumns); ++i)
            if (hasLead_[i]) columns_.push_back(kLeadColumns[i]);
        for (const auto& key : others_)
            if (std::find(columns_.begin(), columns_.end(), key) == columns_.end())
                columns_.push_back(key);
        csv_.emplace(path);
        std::vector<std::string> header;
        for (const auto& c : columns_) header.push_back(csvEscape(c));
        csv_->writeRow(header);
        cells_.resize(columns_.size());
    }
    void write(const nlohmann::json& record) {
        for (std::size_t i = 0; i < columns_.size(); ++i) {
            auto it = record.find(columns_[i]);
            if (it == record.end()) {
                cells_[i].clear();
                continue;
            }
            std::string tag;
            if (auto t = record.find(columns_[i] + std::string(record_codec::kNonFiniteSuffix));
                t != record.end() && t->is_string())
                tag = t->get<std::string>();
            cells_[i] = csvCellFromJson(*it, tag);
        }
        csv_->writeRow(cells_);
    }
    int64_t close() {
        csv_->close();
        return csv_->rows() - 1;
    }

private:
    bool hasLead_[std::size(kLeadColumns)] = {};
    std::set<std::string> seen_;
    std::vector<std::string> others_;
    std::vector<std::string> columns_;
    std::vector<std::string> cells_;
    std::optional<CsvWriter> csv_;
};

class HistogramTable {
public:
    explicit HistogramTable(const std::string& path) : csv_(path) {
        csv_.writeRow({"step", "layer", "kind", "bin", "count"});
    }
    void write(const nlohmann::json& json) {
        HistogramRecord record;
        try {
            record = histogramRecordFromJson(json);
        } catch (const std::exception&) {
            ++skipped_;
            return;
        }
        const std::string step = std::to_string(record.step);
        const std::string layer = csvEscape(record.layer);
        const std::string kind = csvEscape(record.kind);
        const auto row = [&](const std::string& bin, int64_t count) {
            if (count != 0) csv_.writeRow({step, layer, kind, bin, std::to_string(count)});
        };
        const ExponentHistogram& h = record.histogram;
        row("below", h.below);
        for (std::size_t i = 0; i < h.counts.size(); ++i)
            row(std::to_string(kMinExponent + static_cast<int>(i)), h.counts[i]);
        row("above", h.above);
        row("zero", h.zero);
        row("nan", h.nan);
        row("pos_inf", h.posInf);
        row("neg_inf", h.negInf);
    }
    int64_t close(std::vector<std::string>& warnings) {
        csv_.close();
        if (skipped_)
            warnings.push_back("histograms.csv: skipped " + std::to_string(skipped_) +
                               " malformed histogram record(s)");
        return csv_.rows() - 1;
    }

private:
    CsvWriter csv_;
    int skipped_ = 0;
};

class UnderflowTable {
public:
    explicit UnderflowTable(const std::string& path) : csv_(path) {
        csv_.writeRow({"step", "layer", "kind", "multiplier", "exact", "class", "count"});
    }
    void write(const nlohmann::json& json) {
        UnderflowRecord record;
        try {
            record = underflowRecordFromJson(json);
        } catch (const std::exception&) {
            ++skipped_;
            return;
        }
        const Fp16ClassCounts& c = record.counts;
        const std::pair<const char*, int64_t> classes[] = {
            {"zero", c.zero},     {"flushed", c.flushed},   {"subnormal", c.subnormal},
            {"normal", c.normal}, {"overflow", c.overflow}, {"nan", c.nan},
            {"inf", c.inf}};
        for (const auto& [name, count] : classes)
            csv_.writeRow({std::to_string(record.step), csvEscape(record.layer),
                           csvEscape(record.kind), csvNumber(record.multiplier),
                           c.exact ? "true" : "false", name, std::to_string(count)});
    }
    int64_t close(std::vector<std::string>& warnings) {
        csv_.close();
        if (skipped_)
            warnings.push_back("underflow.csv: skipped " + std::to_string(skipped_) +
                               " malformed underflow record(s)");
        return csv_.rows() - 1;
    }

private:
    CsvWriter csv_;
    int skipped_ = 0;
};

// The precision maps: their ops and modules (PrecisionMapCsv.h).
class PrecisionMapTable {
public:
    PrecisionMapTable(const std::string& opsPath, const std::string& modulesPath) : csv_(opsPath, modulesPath) {}
    void write(const nlohmann::json& json) {
        try {
            csv_.write(precisionMapRecordFromJson(json));
        } catch (const std::exception&) {
            ++skipped_;
        }
    }
    int64_t close(std::vector<std::string>& warnings) {
        if (skipped_)
            warnings.push_back("precision_map.csv: skipped " + std::to_string(skipped_) +
                               " malformed precision_map record(s)");
        return csv_.close();
    }

private:
    PrecisionMapCsv csv_;
    int skipped_ = 0;
};

// One record type's file: which table writes it.
struct TypeFile {
    std::string name;
    FlatTable flat;
    std::optional<HistogramTable> histograms;
    std::optional<UnderflowTable> underflow;
    std::optional<PrecisionMapTable> precisionMap;
};

void writeJsonFile(const nlohmann::json& value, const std::string& path) {
    std::ofstream out(path, std::ios::trunc);
    if (!out) throw InputError(path + ": cannot be written");
    out << value.dump(2) << '\n';
    out.flush();
    if (!out) throw InputError(path + ": write failed (disk full?)");
}

// format_quant's block_scale_exponents, an object keyed by exponent strings (which JSON
// sorts as text: "-1" before "-10"), as one readable cell, lowest exponent first:
// "-10:3 -2:40". A record that does not read is written as it is.
nlohmann::json withReadableBlockScales(const nlohmann::json& record) {
    if (!record.contains("block_scale_exponents")) return record;
    try {
        const FormatQuantRecord parsed = formatQuantRecordFromJson(record);
        nlohmann::json copy = record;
        copy["block_scale_exponents"] = blockScaleExponentsText(parsed.point.blockScaleExponents);
        return copy;
    } catch (const std::exception&) {
        return record;
    }
}

using RecordVisitor = std::function<void(const nlohmann::json&)>;
// Calls the visitor with every record in file order; called twice (columns, then rows).
using RunRecordSource = std::function<void(const RecordVisitor&)>;

// `run` gives the config, summary and warnings; the source may fill it in on its first
// pass (a run directory read from disk).
CsvExportResult exportRecordsCsv(const RunRecordSource& forEachRecord, const RunData& run,
                                 const std::string& outDirectory) {
    // Pass 1: the types in the order they first appear, and the flat tables' columns.
    std::vector<std::string> types;
    std::map<std::string, TypeFile> files;
    forEachRecord([&](const nlohmann::json& record) {
        const std::string type = record_codec::typeOf(record);
        if (type.empty() || isFraming(type)) return;
        auto [it, added] = files.try_emplace(type);
        if (added) types.push_back(type);
        if (type != probe_record_type::kHistogram && type != probe_record_type::kUnderflow &&
            type != probe_record_type::kPrecisionMap)
            it->second.flat.noteColumns(record);
    });
    // steps and epochs always exist (with a header only when the run has none), so a
    // script can read them unconditionally.
    for (const std::string_view always : {event_type::kEpoch, event_type::kStep})
        if (files.try_emplace(std::string(always)).second) types.insert(types.begin(), std::string(always));

    std::error_code error;
    std::filesystem::create_directories(outDirectory, error);
    if (error || !std::filesystem::is_directory(outDirectory))
        throw InputError(outDirectory + ": cannot create the export folder" +
                         (error ? " (" + error.message() + ")" : std::string()));

    CsvExportResult result;
    const std::filesystem::path folder(outDirectory);
    std::set<std::string> usedNames;
    for (const std::string& type : types) {
        std::string name;
        if (type == event_type::kStep)
            name = "steps.csv";
        else if (type == event_type::kEpoch)
            name = "epochs.csv";
        else if (type == probe_record_type::kHistogram)
            name = "histograms.csv";
        else
            name = fileStem(type) + ".csv";
        // Two odd types that sanitize to one name must not overwrite each other.
        for (int n = 2; !usedNames.insert(name).second; ++n)
            name = fileStem(type) + "_" + std::to_string(n) + ".csv";
        const std::string path = (folder / name).string();
        TypeFile& file = files[type];
        file.name = name;
        if (type == probe_record_type::kHistogram)
            file.histograms.emplace(path);
        else if (type == probe_record_type::kUnderflow)
            file.underflow.emplace(path);
        else if (type == probe_record_type::kPrecisionMap)
            file.precisionMap.emplace(path, (folder / kPrecisionMapModulesFile).string());
        else
            file.flat.open(path);
        result.files.push_back(path);
        if (file.precisionMap) result.files.push_back((folder / kPrecisionMapModulesFile).string());
    }

    // Pass 2: every record into its file.
    forEachRecord([&](const nlohmann::json& record) {
        const std::string type = record_codec::typeOf(record);
        if (type.empty() || isFraming(type)) return;
        TypeFile& file = files[type];
        if (file.histograms)
            file.histograms->write(record);
        else if (file.underflow)
            file.underflow->write(record);
        else if (file.precisionMap)
            file.precisionMap->write(record);
        else if (type == probe_record_type::kFormatQuant)
            file.flat.write(withReadableBlockScales(record));
        else
            file.flat.write(record);
    });
    for (const std::string& type : types) {
        TypeFile& file = files[type];
        result.dataRows[file.name] = file.histograms     ? file.histograms->close(result.warnings)
                                     : file.underflow    ? file.underflow->close(result.warnings)
                                     : file.precisionMap ? file.precisionMap->close(result.warnings)
                                                         : file.flat.close();
    }

    const std::string configPath = (folder / kConfigFileName).string();
    writeJsonFile(run.config, configPath);
    result.files.push_back(configPath);
    if (run.summary) {
        const std::string summaryPath = (folder / kSummaryFileName).string();
        writeJsonFile(*run.summary, summaryPath);
        result.files.push_back(summaryPath);
    }
    for (const auto& w : run.warnings) result.warnings.push_back(w);
    return result;
}

}  // namespace

CsvExportResult exportRunCsv(const RunData& run, const std::string& outDirectory) {
    return exportRecordsCsv(
        [&run](const RecordVisitor& visit) {
            for (const nlohmann::json& record : run.events) visit(record);
        },
        run, outDirectory);
}

CsvExportResult exportRunCsv(const std::string& runDirectory, const std::string& outDirectory) {
    RunData facts;
    bool firstPass = true;
    return exportRecordsCsv(
        [&](const RecordVisitor& visit) {
            RunData data =
                forEachRunRecord(runDirectory, [&](nlohmann::json& record) { visit(record); });
            if (firstPass) facts = std::move(data);  // the second pass warns the same again
            firstPass = false;
        },
        facts, outDirectory);
}

}  // namespace ampscope
