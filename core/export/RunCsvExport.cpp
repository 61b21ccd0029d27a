#include "export/RunCsvExport.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "common/InputError.h"
#include "export/CsvWriter.h"
#include "probes/ProbeRecords.h"

namespace ampscope {
namespace {

constexpr std::string_view kNonFiniteSuffix = "_nonfinite";

bool isFraming(const std::string& type) {
    return type == "run_start" || type == "run_info" || type == "run_end";
}

// A record type as a file name: letters, digits and '_' only, so a strange type cannot
// write outside the folder.
std::string fileStem(const std::string& type) {
    std::string stem;
    for (char c : type) stem += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    return stem.empty() ? std::string("unnamed") : stem;
}

bool isTagOf(const std::string& key, const nlohmann::json& record) {
    if (key.size() <= kNonFiniteSuffix.size() ||
        key.compare(key.size() - kNonFiniteSuffix.size(), kNonFiniteSuffix.size(),
                    kNonFiniteSuffix) != 0)
        return false;
    return record.contains(key.substr(0, key.size() - kNonFiniteSuffix.size()));
}

// One flat table: columns are the records' fields in first-seen order; the
// "<key>_nonfinite" tags fold into their key's cell.
int64_t writeFlatTable(const std::vector<const nlohmann::json*>& records, const std::string& path) {
    // Where a record has them, these lead (JSON objects come back with sorted keys, so
    // "first seen" alone would put epoch before step).
    std::vector<std::string> columns;
    std::set<std::string> known;
    for (const char* lead : {"step", "epoch", "layer", "kind"})
        for (const nlohmann::json* record : records)
            if (record->contains(lead)) {
                columns.push_back(lead);
                known.insert(lead);
                break;
            }
    for (const nlohmann::json* record : records)
        for (auto it = record->begin(); it != record->end(); ++it) {
            if (it.key() == "type" || isTagOf(it.key(), *record)) continue;
            if (known.insert(it.key()).second) columns.push_back(it.key());
        }
    CsvWriter csv(path);
    std::vector<std::string> header;
    for (const auto& c : columns) header.push_back(csvEscape(c));
    csv.writeRow(header);
    std::vector<std::string> cells(columns.size());
    for (const nlohmann::json* record : records) {
        for (std::size_t i = 0; i < columns.size(); ++i) {
            auto it = record->find(columns[i]);
            if (it == record->end()) {
                cells[i].clear();
                continue;
            }
            std::string tag;
            if (auto t = record->find(columns[i] + std::string(kNonFiniteSuffix));
                t != record->end() && t->is_string())
                tag = t->get<std::string>();
            cells[i] = csvCellFromJson(*it, tag);
        }
        csv.writeRow(cells);
    }
    csv.close();
    return csv.rows() - 1;
}

int64_t writeHistograms(const std::vector<const nlohmann::json*>& records, const std::string& path,
                        std::vector<std::string>& warnings) {
    CsvWriter csv(path);
    csv.writeRow({"step", "layer", "kind", "bin", "count"});
    int skipped = 0;
    for (const nlohmann::json* json : records) {
        HistogramRecord record;
        try {
            record = histogramRecordFromJson(*json);
        } catch (const std::exception&) {
            ++skipped;
            continue;
        }
        const std::string step = std::to_string(record.step);
        const std::string layer = csvEscape(record.layer);
        const std::string kind = csvEscape(record.kind);
        const auto row = [&](const std::string& bin, int64_t count) {
            if (count != 0) csv.writeRow({step, layer, kind, bin, std::to_string(count)});
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
    csv.close();
    if (skipped)
        warnings.push_back("histograms.csv: skipped " + std::to_string(skipped) +
                           " malformed histogram record(s)");
    return csv.rows() - 1;
}

int64_t writeUnderflow(const std::vector<const nlohmann::json*>& records, const std::string& path,
                       std::vector<std::string>& warnings) {
    CsvWriter csv(path);
    csv.writeRow({"step", "layer", "kind", "multiplier", "exact", "class", "count"});
    int skipped = 0;
    for (const nlohmann::json* json : records) {
        UnderflowRecord record;
        try {
            record = underflowRecordFromJson(*json);
        } catch (const std::exception&) {
            ++skipped;
            continue;
        }
        const Fp16ClassCounts& c = record.counts;
        const std::pair<const char*, int64_t> classes[] = {
            {"zero", c.zero},     {"flushed", c.flushed},   {"subnormal", c.subnormal},
            {"normal", c.normal}, {"overflow", c.overflow}, {"nan", c.nan},
            {"inf", c.inf}};
        for (const auto& [name, count] : classes)
            csv.writeRow({std::to_string(record.step), csvEscape(record.layer),
                          csvEscape(record.kind), csvNumber(record.multiplier),
                          c.exact ? "true" : "false", name, std::to_string(count)});
    }
    csv.close();
    if (skipped)
        warnings.push_back("underflow.csv: skipped " + std::to_string(skipped) +
                           " malformed underflow record(s)");
    return csv.rows() - 1;
}

void writeJsonFile(const nlohmann::json& value, const std::string& path) {
    std::ofstream out(path, std::ios::trunc);
    if (!out) throw InputError(path + ": cannot be written");
    out << value.dump(2) << '\n';
    out.flush();
    if (!out) throw InputError(path + ": write failed (disk full?)");
}

}  // namespace

CsvExportResult exportRunCsv(const RunData& run, const std::string& outDirectory) {
    std::error_code error;
    std::filesystem::create_directories(outDirectory, error);
    if (error || !std::filesystem::is_directory(outDirectory))
        throw InputError(outDirectory + ": cannot create the export folder" +
                         (error ? " (" + error.message() + ")" : std::string()));

    // Group the records by type, keeping file order within each type and the order in
    // which types first appear.
    std::vector<std::string> types;
    std::map<std::string, std::vector<const nlohmann::json*>> byType;
    for (const nlohmann::json& record : run.events) {
        auto it = record.find("type");
        if (it == record.end() || !it->is_string()) continue;
        const std::string type = it->get<std::string>();
        if (isFraming(type)) continue;
        auto& list = byType[type];
        if (list.empty()) types.push_back(type);
        list.push_back(&record);
    }
    // steps and epochs always exist (with a header only when the run has none), so a
    // script can read them unconditionally.
    for (const char* always : {"epoch", "step"})
        if (!byType.count(always)) {
            types.insert(types.begin(), always);
            byType[always];
        }

    CsvExportResult result;
    const std::filesystem::path folder(outDirectory);
    std::set<std::string> usedNames;
    for (const std::string& type : types) {
        std::string name;
        if (type == "step")
            name = "steps.csv";
        else if (type == "epoch")
            name = "epochs.csv";
        else if (type == "histogram")
            name = "histograms.csv";
        else
            name = fileStem(type) + ".csv";
        // Two odd types that sanitize to one name must not overwrite each other.
        for (int n = 2; !usedNames.insert(name).second; ++n)
            name = fileStem(type) + "_" + std::to_string(n) + ".csv";
        const std::string path = (folder / name).string();
        const auto& records = byType[type];
        int64_t rows = 0;
        if (type == "histogram")
            rows = writeHistograms(records, path, result.warnings);
        else if (type == "underflow")
            rows = writeUnderflow(records, path, result.warnings);
        else
            rows = writeFlatTable(records, path);
        result.files.push_back(path);
        result.dataRows[name] = rows;
    }
    const std::string configPath = (folder / "config.json").string();
    writeJsonFile(run.config, configPath);
    result.files.push_back(configPath);
    if (run.summary) {
        const std::string summaryPath = (folder / "summary.json").string();
        writeJsonFile(*run.summary, summaryPath);
        result.files.push_back(summaryPath);
    }
    for (const auto& w : run.warnings) result.warnings.push_back(w);
    return result;
}

}  // namespace ampscope
