//===- Bench.cpp - onnxcc bench: compile, build, time --------------------===//
//
// The model is compiled with every input dim fixed (static shapes: what an
// application that benchmarks a model would compile), built together with a
// timing harness (main.cpp, below) by the same build code as `onnxcc verify`,
// and run once; the harness reports its own timings, which this file turns
// into the summary. bench/run.py runs the harness binary of a kept folder
// itself, interleaved with ONNX Runtime, with the flags documented in the
// harness.
//
// FLOPs come from the shape-inferred model (compiler/Flops.h): 2 per
// multiply-add of the contractions (Conv, MatMul, Gemm, attention, RNNs...),
// one per element read by pooling and reductions, nothing for the rest.
//
// With --profile the model is compiled with its per-node timing hooks; the
// harness writes the marks of every timed run and this file turns them into
// the time of each node and a Chrome trace.
//
//===----------------------------------------------------------------------===//
#include "compiler/Bench.h"
#include "codegen/SourceText.h"
#include "compiler/Errors.h"
#include "compiler/Driver.h"
#include "compiler/HalideTarget.h"
#include "compiler/Flops.h"
#include "compiler/Inspect.h"
#include "compiler/ModelLoader.h"
#include "compiler/Verify.h"

#include "onnx.pb.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <cmath>
#include <optional>

using namespace llvm;

namespace onnxcc {

namespace {

/// @NAME@ is replaced by the model name. The model has static shapes (bench
/// fixes every dim), so the table's shapes are the tensors' shapes.
constexpr const char *harnessTemplate = R"(// Timing harness written by onnxcc bench for @NAME@.
//   run [--iters N] [--warmup N] [--seed S] [--input FILE]... [--outputs DIR]
//       [--spawn-ns T] [--profile-out FILE]
// Runs @NAME@_run_generic WARMUP + ITERS times (defaults 5 and 50) on the same
// inputs: seeded random values (float: uniform in [-1, 1]; integers: 0..9;
// bool: 0 or 1), or, with one --input per model input in order, the raw bytes
// of those files. Prints one key=value per line:
//   first_output_ms=T  from the process's spawn (--spawn-ns: the parent's
//                      steady_clock, CLOCK_MONOTONIC on Linux, in ns, just
//                      before it started the harness; without it, from the
//                      harness's static initialization) to the end of its
//                      first run; printed (and flushed) then
//   arena_bytes=B
//   times_ms=T1,...    each timed run (steady_clock)
//   peak_rss_kb=K      the process's peak RSS: VmHWM of /proc/self/status
//                      (getrusage's ru_maxrss where there is none; on Linux
//                      that counts the parent's memory when it spawned the
//                      harness without a fork)
// --outputs DIR writes output K of the last run to DIR/output_K.bin.
// --profile-out FILE (a model compiled with --profile) writes, for each timed
// run, its start and end and the @NAME@_PROFILE_MARKS marks of @NAME@.h, as
// int64_t nanoseconds of steady_clock, one run after the other.
#define @NAME@_NO_CXX_WRAPPER
#include "@NAME@.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fstream>
#include <sys/resource.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#ifdef @NAME@_NUM_SYMBOLS
#error "onnxcc bench compiles models with static shapes"
#endif

namespace {
using Clock = std::chrono::steady_clock;
const Clock::time_point harnessStart = Clock::now();

double msBetween(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

size_t numBytes(const @NAME@_tensor_info &t) {
  size_t n = (size_t)t.elem_size;
  for (int32_t i = 0; i < t.rank; ++i)
    n *= (size_t)t.shape[i];
  return n;
}

void *allocate(size_t bytes, size_t align) {
  size_t size = (bytes + align - 1) / align * align;
  void *p = aligned_alloc(align, size ? size : align);
  if (p)
    memset(p, 0, size ? size : align);
  return p;
}

/// The arena, zeroed. On Linux a block of 2 MB or more is 2 MB-aligned and
/// marked MADV_HUGEPAGE, so that transparent huge pages back it where the
/// system allows them: the first run then takes a page fault per 2 MB of
/// arena, not per 4 KB (ResNet-18's 4 MB: about 980 fewer faults, some 2 ms
/// of its cold start). The arena is one block of a size known at compile
/// time, so an application can do the same (ABI.md, "The arena").
void *allocateArena(size_t bytes, size_t align) {
#ifdef __linux__
  const size_t huge = size_t(2) << 20;
  if (bytes >= huge && align <= huge) {
    size_t size = (bytes + huge - 1) / huge * huge;
    if (void *p = aligned_alloc(huge, size)) {
      (void)madvise(p, size, MADV_HUGEPAGE); // a hint: no effect where THP is off
      memset(p, 0, size);
      return p;
    }
  }
#endif
  return allocate(bytes, align);
}

/// splitmix64: a small generator with the same sequence everywhere.
uint64_t nextRandom(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// Uniform in [-1, 1].
float randomFloat(uint64_t &state) {
  return (float)((nextRandom(state) >> 40) * (2.0 / 16777216.0) - 1.0);
}

uint32_t floatBits(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof(bits));
  return bits;
}

/// float16 bits of f in [-1, 1] (truncated; below 2^-14 flushed to zero).
uint16_t toHalf(float f) {
  uint32_t bits = floatBits(f);
  uint16_t sign = (uint16_t)((bits >> 16) & 0x8000);
  int exponent = (int)((bits >> 23) & 0xff) - 127 + 15;
  if (exponent <= 0)
    return sign;
  return (uint16_t)(sign | (exponent << 10) | ((bits >> 13) & 0x3ff));
}

/// Fills `data` with random values of dtype `t.dtype`; false for a dtype
/// bench cannot make values of (strings).
bool fillRandom(const @NAME@_tensor_info &t, void *data, uint64_t &state) {
  size_t count = numBytes(t) / (size_t)t.elem_size;
  unsigned char *bytes = (unsigned char *)data;
  const std::string dtype = t.dtype;
  for (size_t i = 0; i < count; ++i) {
    unsigned char *at = bytes + i * (size_t)t.elem_size;
    if (dtype == "float32") {
      float v = randomFloat(state);
      memcpy(at, &v, 4);
    } else if (dtype == "float64") {
      double v = randomFloat(state);
      memcpy(at, &v, 8);
    } else if (dtype == "float16") {
      uint16_t v = toHalf(randomFloat(state));
      memcpy(at, &v, 2);
    } else if (dtype == "bfloat16") {
      uint16_t v = (uint16_t)(floatBits(randomFloat(state)) >> 16);
      memcpy(at, &v, 2);
    } else if (dtype == "bool") {
      *at = (unsigned char)(nextRandom(state) >> 63);
    } else if (dtype == "float4e2m1") {
      *at = (unsigned char)(nextRandom(state) % 8); // 0 .. 6, positive
    } else if (dtype.compare(0, 6, "float8") == 0) {
      // Bit patterns below 0x70: positive and finite in every float8 type.
      *at = (unsigned char)(nextRandom(state) % 0x70);
    } else if (dtype == "int2" || dtype == "uint2") {
      *at = (unsigned char)(nextRandom(state) % 2); // in range of both
    } else if (dtype == "int4" || dtype == "uint4") {
      *at = (unsigned char)(nextRandom(state) % 8);
    } else if (dtype.compare(0, 3, "int") == 0 || dtype.compare(0, 4, "uint") == 0) {
      // Small non-negative values fit every integer type (and index most
      // tables); little-endian: the low bytes of a uint64_t.
      uint64_t v = nextRandom(state) % 10;
      memcpy(at, &v, (size_t)t.elem_size);
    } else {
      return false;
    }
  }
  return true;
}

bool readFile(const char *path, void *data, size_t bytes) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return false;
  size_t got = fread(data, 1, bytes, f);
  int extra = fgetc(f);
  fclose(f);
  return got == bytes && extra == EOF;
}

long peakRssKb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.compare(0, 6, "VmHWM:") == 0)
      return strtol(line.c_str() + 6, nullptr, 10);
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return (long)usage.ru_maxrss;
}

long parseCount(const char *flag, const char *text) {
  char *end;
  long value = strtol(text, &end, 10);
  if (end == text || *end != 0 || value < 0) {
    fprintf(stderr, "%s needs a non-negative number, not '%s'\n", flag, text);
    exit(2);
  }
  return value;
}
} // namespace

int main(int argc, char **argv) {
  const int numInputs = @NAME@_NUM_INPUTS, numOutputs = @NAME@_NUM_OUTPUTS;
  long iters = 50, warmup = 5;
  uint64_t seed = 1;
  std::vector<const char *> inputFiles;
  const char *outputDir = nullptr;
  const char *profileOut = nullptr;
  Clock::time_point start = harnessStart;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    if (i + 1 >= argc) {
      fprintf(stderr, "unknown or incomplete argument '%s'\n", arg);
      return 2;
    }
    if (strcmp(arg, "--iters") == 0)
      iters = parseCount(arg, argv[++i]);
    else if (strcmp(arg, "--warmup") == 0)
      warmup = parseCount(arg, argv[++i]);
    else if (strcmp(arg, "--seed") == 0)
      seed = (uint64_t)parseCount(arg, argv[++i]);
    else if (strcmp(arg, "--input") == 0)
      inputFiles.push_back(argv[++i]);
    else if (strcmp(arg, "--outputs") == 0)
      outputDir = argv[++i];
    else if (strcmp(arg, "--spawn-ns") == 0)
      start = Clock::time_point(std::chrono::nanoseconds(parseCount(arg, argv[++i])));
    else if (strcmp(arg, "--profile-out") == 0)
      profileOut = argv[++i];
    else {
      fprintf(stderr, "unknown argument '%s'\n", arg);
      return 2;
    }
  }
  if (iters < 1) {
    fprintf(stderr, "--iters must be at least 1\n");
    return 2;
  }
  if (!inputFiles.empty() && (int)inputFiles.size() != numInputs) {
    fprintf(stderr, "%d --input files for %d inputs\n", (int)inputFiles.size(), numInputs);
    return 2;
  }

  const size_t align = @NAME@_ARENA_ALIGN < 64 ? 64 : @NAME@_ARENA_ALIGN;
  const void *inputs[@NAME@_NUM_INPUTS + 1];
  void *outputs[@NAME@_NUM_OUTPUTS + 1];
  uint64_t state = seed;
  for (int i = 0; i < numInputs; ++i) {
    const @NAME@_tensor_info &t = @NAME@_inputs[i];
    void *data = allocate(numBytes(t), align);
    if (!data) {
      fprintf(stderr, "out of memory\n");
      return 2;
    }
    if (!inputFiles.empty()) {
      if (!readFile(inputFiles[i], data, numBytes(t))) {
        fprintf(stderr, "%s: input '%s' needs a readable file of exactly %zu bytes\n",
                inputFiles[i], t.name, numBytes(t));
        return 2;
      }
    } else if (!fillRandom(t, data, state)) {
      fprintf(stderr, "input '%s' is %s, which bench cannot make random values of\n", t.name,
              t.dtype);
      return 2;
    }
    inputs[i] = data;
  }
  for (int i = 0; i < numOutputs; ++i) {
    outputs[i] = allocate(numBytes(@NAME@_outputs[i]), align);
    if (!outputs[i]) {
      fprintf(stderr, "out of memory\n");
      return 2;
    }
  }
  void *arena = allocateArena(@NAME@_ARENA_SIZE, @NAME@_ARENA_ALIGN);
  if (!arena) {
    fprintf(stderr, "cannot allocate the %zu-byte arena\n", (size_t)@NAME@_ARENA_SIZE);
    return 2;
  }

#ifdef @NAME@_PROFILE_MARKS
  // Per timed run: its start and end, then the marks (see --profile-out).
  const size_t profileRow = 2 + @NAME@_PROFILE_MARKS;
  std::vector<int64_t> profile(profileOut ? profileRow * ((size_t)iters + 1) : 0);
#else
  if (profileOut) {
    fprintf(stderr, "--profile-out needs a model compiled with --profile\n");
    return 2;
  }
#endif
  auto nanoseconds = [](Clock::time_point t) {
    return (int64_t)std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch())
        .count();
  };
  (void)nanoseconds;

  std::vector<double> times;
  times.reserve((size_t)iters);
  for (long r = 0; r < warmup + iters; ++r) {
#ifdef @NAME@_PROFILE_MARKS
    // Warm-up runs write the spare row at the end.
    int64_t *row = profileOut ? &profile[profileRow * (size_t)(r >= warmup ? r - warmup : iters)]
                              : nullptr;
    @NAME@_profile_attach(row ? row + 2 : nullptr);
#endif
    Clock::time_point before = Clock::now();
    int status = @NAME@_run_generic(arena, inputs, outputs);
    Clock::time_point end = Clock::now();
#ifdef @NAME@_PROFILE_MARKS
    if (row) {
      row[0] = nanoseconds(before);
      row[1] = nanoseconds(end);
    }
#endif
    if (status != 0) {
      fprintf(stderr, "@NAME@_run_generic returned status %d\n", status);
      return 3;
    }
    if (r == 0) {
      printf("first_output_ms=%.6f\n", msBetween(start, end));
      fflush(stdout);
    }
    if (r >= warmup)
      times.push_back(msBetween(before, end));
  }
  printf("arena_bytes=%zu\n", (size_t)@NAME@_ARENA_SIZE);
  printf("times_ms=");
  for (size_t k = 0; k < times.size(); ++k)
    printf(k ? ",%.6f" : "%.6f", times[k]);
  printf("\n");
  printf("peak_rss_kb=%ld\n", peakRssKb());

#ifdef @NAME@_PROFILE_MARKS
  @NAME@_profile_attach(nullptr);
  if (profileOut) {
    FILE *f = fopen(profileOut, "wb");
    size_t count = profileRow * (size_t)iters;
    if (!f || fwrite(profile.data(), sizeof(int64_t), count, f) != count || fclose(f) != 0) {
      fprintf(stderr, "cannot write %s\n", profileOut);
      return 2;
    }
  }
#endif
  for (int i = 0; outputDir && i < numOutputs; ++i) {
    std::string path = std::string(outputDir) + "/output_" + std::to_string(i) + ".bin";
    FILE *f = fopen(path.c_str(), "wb");
    size_t bytes = numBytes(@NAME@_outputs[i]);
    if (!f || fwrite(outputs[i], 1, bytes, f) != bytes || fclose(f) != 0) {
      fprintf(stderr, "cannot write %s\n", path.c_str());
      return 2;
    }
  }
  return fflush(stdout) == 0 ? 0 : 2;
}
)";

std::string instantiateHarness(StringRef name) {
  std::string text = harnessTemplate;
  for (size_t pos; (pos = text.find("@NAME@")) != std::string::npos;)
    text.replace(pos, 6, name.str());
  return text;
}

using Shapes = std::vector<std::pair<std::string, std::vector<int64_t>>>;

/// A model input as bench feeds it.
struct BenchInput {
  std::string name;
  std::string dtype;
  std::vector<int64_t> dims;
  bool fixed = false; ///< whether bench (or --shape) chose any of its dims
};

/// Every input's dims: --shape where given; otherwise the declared dims, a
/// symbolic or unknown one being 1 when it is the input's first dim (the
/// batch) and 64 otherwise. One dim_param gets one value in every input: the
/// first input (in --shape inputs first, then model order) that has it
/// decides.
Expected<std::vector<BenchInput>> chooseInputs(StringRef modelPath, const Shapes &given) {
  auto model = loadModel(modelPath);
  if (!model)
    return model.takeError();
  const ::onnx::GraphProto &graph = model->proto->graph();
  StringSet<> initializers;
  for (const auto &init : graph.initializer())
    initializers.insert(init.name());
  std::vector<const ::onnx::ValueInfoProto *> protos;
  for (const auto &input : graph.input())
    if (!initializers.contains(input.name()))
      protos.push_back(&input);

  for (const auto &entry : given)
    if (llvm::none_of(protos, [&](const auto *p) { return p->name() == entry.first; }))
      return makeError("--shape names '" + entry.first +
                       "', which is not an input of the model");

  StringMap<int64_t> symbols;
  auto givenDims = [&](StringRef name) -> const std::vector<int64_t> * {
    for (const auto &[n, dims] : given)
      if (n == name)
        return &dims;
    return nullptr;
  };
  // Symbols of the --shape inputs first, so that they decide.
  for (const auto *proto : protos) {
    const std::vector<int64_t> *dims = givenDims(proto->name());
    if (!dims || !proto->type().tensor_type().has_shape())
      continue;
    const auto &shape = proto->type().tensor_type().shape();
    if (shape.dim_size() != static_cast<int>(dims->size()))
      return makeError("--shape " + proto->name() + ": the input has rank " +
                       Twine(shape.dim_size()) + ", the shape gives " + Twine(dims->size()) +
                       " dims");
    for (auto [d, dim] : llvm::enumerate(shape.dim())) {
      if (dim.has_dim_value() && dim.dim_value() != (*dims)[d])
        return makeError("--shape " + proto->name() + ": dim " + Twine((*dims)[d]) +
                         " contradicts the model's " + Twine(dim.dim_value()));
      if (dim.has_dim_param() && !dim.dim_param().empty())
        symbols.try_emplace(dim.dim_param(), (*dims)[d]);
    }
  }

  std::vector<BenchInput> inputs;
  for (const auto *proto : protos) {
    BenchInput input;
    input.name = proto->name();
    if (!proto->type().has_tensor_type())
      return makeError("input '" + input.name + "' is not a tensor, which bench cannot feed");
    const auto &tensorType = proto->type().tensor_type();
    input.dtype = getDataTypeName(tensorType.elem_type());
    if (input.dtype == "string")
      return makeError("input '" + input.name +
                       "' is a string tensor, which bench cannot make random values of");
    if (const std::vector<int64_t> *dims = givenDims(input.name)) {
      input.dims = *dims;
      input.fixed = true;
    } else if (!tensorType.has_shape()) {
      return makeError("input '" + input.name + "' has no declared shape; give it with --shape " +
                       input.name + "=D0xD1x...");
    } else {
      for (auto [d, dim] : llvm::enumerate(tensorType.shape().dim())) {
        if (dim.has_dim_value() && dim.dim_value() >= 0) {
          input.dims.push_back(dim.dim_value());
          continue;
        }
        input.fixed = true;
        int64_t value = d == 0 ? 1 : 64;
        if (dim.has_dim_param() && !dim.dim_param().empty())
          value = symbols.try_emplace(dim.dim_param(), value).first->second;
        input.dims.push_back(value);
      }
    }
    inputs.push_back(std::move(input));
  }
  return inputs;
}

std::string formatDims(ArrayRef<int64_t> dims, StringRef separator = "x") {
  std::string text;
  for (auto [i, d] : llvm::enumerate(dims))
    text += (i ? separator.str() : "") + std::to_string(d);
  return text;
}

/// 1234567 -> "1.235 M" (FLOPs and bytes for people).
std::string humanCount(double value) {
  const char *units[] = {"", " K", " M", " G", " T"};
  unsigned u = 0;
  while (value >= 1000 && u + 1 < std::size(units)) {
    value /= 1000;
    ++u;
  }
  std::string text;
  raw_string_ostream os(text);
  os << format("%.4g", value) << units[u];
  return text;
}

std::string formatNumber(double value, const char *fmt = "%.6g") {
  std::string text;
  raw_string_ostream os(text);
  os << format(fmt, value);
  return text;
}

/// What the harness printed.
struct HarnessReport {
  double firstOutputMs = 0;
  uint64_t arenaBytes = 0;
  std::vector<double> timesMs;
  int64_t peakRssKb = 0;
};

Expected<HarnessReport> parseHarnessOutput(StringRef path) {
  auto buffer = MemoryBuffer::getFile(path);
  if (!buffer)
    return makeError("run: cannot read the harness's output " + path);
  HarnessReport report;
  bool haveTimes = false, haveRss = false, haveFirst = false;
  SmallVector<StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef line : lines) {
    auto [key, value] = line.trim().split('=');
    bool bad = false;
    if (key == "first_output_ms") {
      bad = value.getAsDouble(report.firstOutputMs);
      haveFirst = true;
    } else if (key == "arena_bytes") {
      bad = value.getAsInteger(10, report.arenaBytes);
    } else if (key == "peak_rss_kb") {
      bad = value.getAsInteger(10, report.peakRssKb);
      haveRss = true;
    } else if (key == "times_ms") {
      SmallVector<StringRef> parts;
      value.split(parts, ',', -1, /*KeepEmpty=*/false);
      for (StringRef part : parts) {
        double t;
        bad |= part.getAsDouble(t);
        report.timesMs.push_back(t);
      }
      haveTimes = true;
    }
    if (bad)
      return makeError("run: cannot parse the harness's line '" + line + "'");
  }
  if (!haveFirst || !haveTimes || !haveRss || report.timesMs.empty())
    return makeError("run: the harness's output " + path + " is incomplete");
  return report;
}

/// The median (the mean of the two middle values for an even count) and the
/// nearest-rank 90th percentile (the smallest sample with at least 90% of the
/// samples at or below it).
std::pair<double, double> medianAndP90(std::vector<double> sorted) {
  llvm::sort(sorted);
  size_t n = sorted.size();
  double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  size_t rank = static_cast<size_t>(std::ceil(0.9 * static_cast<double>(n)));
  double p90 = sorted[std::max<size_t>(rank, 1) - 1];
  return {median, p90};
}

/// The per-node times of the harness's --profile-out file, with the nodes of
/// NAME.profile.json (see codegen/cpp/ABI.md, "Profiling").
struct NodeTime {
  std::string name, opType, path;
  double totalNs = 0;
  uint64_t calls = 0;
};
struct ProfileData {
  std::vector<NodeTime> nodes;
  std::vector<int> markNode;
  /// Per timed run: start, end, then the marks (ns of steady_clock).
  std::vector<int64_t> rows;
  size_t runs = 0;
  double runNs = 0; ///< the timed runs' total
};

Expected<ProfileData> readProfile(StringRef tablePath, StringRef stampsPath, size_t runs) {
  auto table = MemoryBuffer::getFile(tablePath);
  if (!table)
    return makeError("profile: cannot read " + tablePath);
  auto parsed = json::parse((*table)->getBuffer());
  if (!parsed)
    return makeError("profile: " + tablePath + ": " + toString(parsed.takeError()));
  ProfileData data;
  const json::Object *root = parsed->getAsObject();
  const json::Array *nodes = root ? root->getArray("nodes") : nullptr;
  const json::Array *marks = root ? root->getArray("mark_node") : nullptr;
  if (!nodes || !marks || marks->empty())
    return makeError("profile: " + tablePath + " holds no nodes and marks");
  for (const json::Value &v : *nodes) {
    const json::Object *node = v.getAsObject();
    if (!node)
      return makeError("profile: " + tablePath + ": a node is not an object");
    NodeTime t;
    t.name = node->getString("name").value_or("").str();
    t.opType = node->getString("op_type").value_or("").str();
    t.path = node->getString("path").value_or("").str();
    data.nodes.push_back(std::move(t));
  }
  for (const json::Value &v : *marks) {
    std::optional<int64_t> k = v.getAsInteger();
    if (!k || *k < -1 || *k >= static_cast<int64_t>(data.nodes.size()))
      return makeError("profile: " + tablePath + ": a mark names no node");
    data.markNode.push_back(static_cast<int>(*k));
  }
  auto stamps = MemoryBuffer::getFile(stampsPath, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!stamps)
    return makeError("profile: cannot read " + stampsPath);
  size_t rowSize = 2 + data.markNode.size();
  StringRef bytes = (*stamps)->getBuffer();
  if (bytes.size() != runs * rowSize * sizeof(int64_t))
    return makeError("profile: " + stampsPath + " holds " + Twine(bytes.size()) +
                     " bytes, expected " + Twine(runs * rowSize * sizeof(int64_t)));
  data.rows.resize(runs * rowSize);
  memcpy(data.rows.data(), bytes.data(), bytes.size());
  data.runs = runs;
  for (size_t r = 0; r < runs; ++r) {
    const int64_t *row = &data.rows[r * rowSize];
    data.runNs += static_cast<double>(row[1] - row[0]);
    for (size_t k = 0; k + 1 < data.markNode.size(); ++k) {
      NodeTime &node = data.nodes[data.markNode[k]];
      node.totalNs += static_cast<double>(row[2 + k + 1] - row[2 + k]);
      ++node.calls;
    }
  }
  return data;
}

/// The nodes by time, the largest first (model order among equals).
std::vector<const NodeTime *> byTime(const ProfileData &data) {
  std::vector<const NodeTime *> order;
  for (const NodeTime &node : data.nodes)
    order.push_back(&node);
  // Not std::stable_sort (a deprecated temporary buffer under clang 22):
  // the nodes are in model order, which breaks ties.
  llvm::sort(order, [](const NodeTime *a, const NodeTime *b) {
    return a->totalNs != b->totalNs ? a->totalNs > b->totalNs : a < b;
  });
  return order;
}

void printProfile(const ProfileData &data, unsigned top, raw_ostream &os) {
  double marked = 0;
  for (const NodeTime &node : data.nodes)
    marked += node.totalNs;
  double runs = static_cast<double>(data.runs);
  auto share = [&](double ns) {
    return formatNumber(data.runNs > 0 ? 100 * ns / data.runNs : 0, "%.1f%%");
  };
  os << "profile: " << data.nodes.size() << " nodes, time per run over " << data.runs
     << " timed runs (each node's code timed on the calling thread; "
     << share(data.runNs - marked) << " of the time is outside them):\n";
  size_t pathWidth = 4, typeWidth = 2;
  for (const NodeTime &node : data.nodes) {
    pathWidth = std::max(pathWidth, node.path.size());
    typeWidth = std::max(typeWidth, node.opType.size());
  }
  pathWidth = std::min<size_t>(pathWidth, 40);
  typeWidth = std::min<size_t>(typeWidth, 28);
  os << right_justify("ms/run", 9) << right_justify("share", 7) << right_justify("total ms", 10)
     << right_justify("calls", 7) << "  " << left_justify("path", pathWidth) << "  "
     << left_justify("op", typeWidth) << "  node\n";
  std::vector<const NodeTime *> order = byTime(data);
  size_t shown = top ? std::min<size_t>(top, order.size()) : order.size();
  for (const NodeTime *node : ArrayRef(order).take_front(shown))
    os << right_justify(formatNumber(node->totalNs / runs / 1e6, "%.4f"), 9)
       << right_justify(share(node->totalNs), 7)
       << right_justify(formatNumber(node->totalNs / 1e6, "%.3f"), 10)
       << right_justify(std::to_string(node->calls), 7) << "  "
       << left_justify(node->path, pathWidth) << "  " << left_justify(node->opType, typeWidth)
       << "  " << codegen::displayText(node->name, 120) << "\n";
  if (shown < order.size()) {
    double rest = 0;
    for (const NodeTime *node : ArrayRef(order).drop_front(shown))
      rest += node->totalNs;
    os << "  ... " << order.size() - shown << " more nodes: " << share(rest)
       << " (--profile-top 0 lists all)\n";
  }
}

/// A Chrome trace (chrome://tracing, Perfetto) in the form of ONNX Runtime's
/// profiler: one "Session" event per timed run and one "Node" event per
/// node's code in it, microseconds from the first timed run's start.
Error writeTrace(const ProfileData &data, StringRef modelName, StringRef path) {
  std::error_code ec;
  raw_fd_ostream file(path, ec, sys::fs::OF_None);
  if (ec)
    return makeError("cannot write " + path + ": " + ec.message());
  size_t rowSize = 2 + data.markNode.size();
  int64_t origin = data.rows.empty() ? 0 : data.rows[0];
  auto us = [&](int64_t ns) { return static_cast<double>(ns - origin) / 1000.0; };
  json::OStream j(file);
  j.array([&] {
    for (size_t r = 0; r < data.runs; ++r) {
      const int64_t *row = &data.rows[r * rowSize];
      auto event = [&](StringRef cat, StringRef name, int64_t from, int64_t to,
                       llvm::function_ref<void()> args) {
        file << "\n";
        j.object([&] {
          j.attribute("cat", cat);
          j.attribute("pid", 1);
          j.attribute("tid", 1);
          j.attribute("dur", static_cast<double>(to - from) / 1000.0);
          j.attribute("ts", us(from));
          j.attribute("ph", "X");
          j.attribute("name", name);
          j.attributeObject("args", args);
        });
      };
      event("Session", "model_run", row[0], row[1], [&] {
        j.attribute("model", codegen::cleanText(modelName));
        j.attribute("run", static_cast<int64_t>(r));
      });
      for (size_t k = 0; k + 1 < data.markNode.size(); ++k) {
        const NodeTime &node = data.nodes[data.markNode[k]];
        event("Node", node.name, row[2 + k], row[2 + k + 1], [&] {
          j.attribute("op_name", node.opType);
          j.attribute("path", node.path);
        });
      }
    }
  });
  file << "\n";
  file.close();
  if (file.has_error())
    return makeError("cannot write " + path);
  return Error::success();
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

Error benchModel(StringRef modelPath, const BenchOptions &options, raw_ostream &os) {
  if (options.iters < 1)
    return makeError("--iters must be at least 1");
  if (options.threads < 1)
    return makeError("--threads must be at least 1");

  auto inputs = chooseInputs(modelPath, options.shapes);
  if (!inputs)
    return inputs.takeError();
  if (!options.inputFiles.empty() && options.inputFiles.size() != inputs->size())
    return makeError(Twine(options.inputFiles.size()) + " --input files for the model's " +
                     Twine(inputs->size()) + " inputs");
  Shapes fixedShapes;
  for (const BenchInput &input : *inputs)
    if (input.fixed)
      fixedShapes.push_back({input.name, input.dims});

  auto flops = countFlops(modelPath, fixedShapes);
  if (!flops)
    return makeError("flops: " + toString(flops.takeError()));

  // The work folder: kept, or temporary (removed on every exit).
  SmallString<256> workDir;
  bool temporary = false;
  if (!options.keepDir.empty()) {
    workDir = options.keepDir;
    if (std::error_code ec = sys::fs::create_directories(workDir))
      return makeError("cannot create " + workDir + ": " + ec.message());
  } else {
    if (std::error_code ec = sys::fs::createUniqueDirectory("onnxcc-bench", workDir))
      return makeError("cannot create a temporary folder: " + ec.message());
    temporary = true;
  }
  llvm::scope_exit cleanup([&] {
    if (temporary)
      sys::fs::remove_directories(workDir);
  });
  // The generated .cpp finds its weights through __FILE__: build with
  // absolute paths.
  if (std::error_code ec = sys::fs::make_absolute(workDir))
    return makeError("cannot resolve " + workDir + ": " + ec.message());

  CompileOptions compileOptions;
  compileOptions.name = sanitizeIdentifier(sys::path::stem(modelPath));
  // main.cpp is the harness.
  if (compileOptions.name == "main")
    compileOptions.name = "main_model";
  compileOptions.outDir = std::string(workDir);
  compileOptions.emit = EmitStage::Cpp;
  compileOptions.shapes = fixedShapes;
  compileOptions.threads = options.threads;
  compileOptions.targetCpu = options.targetCpu;
  compileOptions.target = options.target;
  compileOptions.halideAutoscheduler = options.halideAutoscheduler;
  compileOptions.profile = options.profile;
  if (options.profile && options.target != "cpp")
    return makeError("--profile needs --target cpp");
  auto compileStart = std::chrono::steady_clock::now();
  if (Error err = compileModel(modelPath, compileOptions, nulls()))
    return makeError("compile: " + toString(std::move(err)));
  double compileSeconds = secondsSince(compileStart);

  std::string runPath;
  bool built = false;
  auto buildStart = std::chrono::steady_clock::now();
  std::string cxxFlags = options.cxxFlags;
  if (options.target == "halide") {
    auto flags = buildHalidePipeline(workDir, compileOptions.name, options.cxx,
                                     options.halideAutoscheduler, options.targetCpu);
    if (!flags)
      return flags.takeError();
    cxxFlags += " " + *flags;
  }
  if (Error err = buildHarnessProgram(workDir, compileOptions.name,
                                      instantiateHarness(compileOptions.name), options.cxx,
                                      cxxFlags, runPath, &built))
    return err;
  double buildSeconds = secondsSince(buildStart);

  auto inDir = [&](const Twine &file) {
    SmallString<256> path(workDir);
    sys::path::append(path, file);
    return std::string(path);
  };
  std::string outPath = inDir("bench.out"), errPath = inDir("bench.err");
  // The harness measures its first output from here (steady_clock is
  // CLOCK_MONOTONIC, the same in both processes).
  auto spawnNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                     std::chrono::steady_clock::now().time_since_epoch())
                     .count();
  std::vector<std::string> harnessArgs = {
      runPath,  "--iters", std::to_string(options.iters), "--warmup",
      std::to_string(options.warmup), "--seed", std::to_string(options.seed), "--spawn-ns",
      std::to_string(spawnNs)};
  for (const std::string &file : options.inputFiles) {
    harnessArgs.push_back("--input");
    harnessArgs.push_back(file);
  }
  std::string stampsPath = inDir("profile.bin");
  if (options.profile) {
    harnessArgs.push_back("--profile-out");
    harnessArgs.push_back(stampsPath);
  }
  if (Error err = runHarnessProgram(VerifyStage::Run, "the harness", harnessArgs, outPath,
                                    errPath))
    return err;
  auto report = parseHarnessOutput(outPath);
  if (!report)
    return report.takeError();
  std::optional<ProfileData> profile;
  std::string tracePath = options.tracePath.empty()
                              ? "onnxcc_profile_" + compileOptions.name + ".json"
                              : options.tracePath;
  if (options.profile) {
    auto data = readProfile(inDir(compileOptions.name + ".profile.json"), stampsPath,
                            report->timesMs.size());
    if (!data)
      return data.takeError();
    profile = std::move(*data);
    if (Error err = writeTrace(*profile, compileOptions.name, tracePath))
      return err;
  }
  std::pair<double, double> stats = medianAndP90(report->timesMs);
  double median = stats.first, p90 = stats.second;
  double gflops = median > 0 ? static_cast<double>(flops->total) / (median * 1e6) : 0;
  double minMs = *llvm::min_element(report->timesMs);
  double maxMs = *llvm::max_element(report->timesMs);
  double meanMs = 0;
  for (double t : report->timesMs)
    meanMs += t / static_cast<double>(report->timesMs.size());

  os << "model: " << modelPath << " (compiled as " << compileOptions.name << ")\n";
  for (const BenchInput &input : *inputs)
    os << "input: " << input.name << " " << input.dtype << "[" << formatDims(input.dims, ", ")
       << "]\n";
  os << "flops: " << humanCount(static_cast<double>(flops->total)) << "FLOP per run";
  for (auto [i, entry] : llvm::enumerate(flops->byOp)) {
    const auto &[op, nodes, count] = entry;
    os << (i ? ", " : " (") << op << " x" << nodes << " " << humanCount(double(count));
  }
  os << (flops->byOp.empty() ? "" : ")");
  if (flops->uncounted)
    os << "; " << flops->uncounted << " nodes of unknown shape not counted";
  os << "\n";
  os << "compile: onnxcc " << formatNumber(compileSeconds, "%.2f") << " s, c++ "
     << options.cxxFlags << " "
     << (built ? formatNumber(buildSeconds, "%.2f") + " s" : std::string("(cached)")) << "\n";
  os << "threads: " << options.threads << ", target CPU: " << options.targetCpu << "\n";
  os << "first output: " << formatNumber(report->firstOutputMs, "%.3f")
     << " ms after the harness was started (cold start)\n";
  os << "runs: " << report->timesMs.size() << " after " << options.warmup
     << " warm-up: min " << formatNumber(minMs, "%.4g") << " ms, median "
     << formatNumber(median, "%.4g") << " ms, p90 " << formatNumber(p90, "%.4g")
     << " ms, max " << formatNumber(maxMs, "%.4g") << " ms\n";
  os << "peak RSS: " << formatNumber(report->peakRssKb / 1024.0, "%.1f") << " MiB (arena "
     << formatNumber(report->arenaBytes / 1048576.0, "%.2f") << " MiB)\n";
  if (profile) {
    printProfile(*profile, options.profileTop, os);
    os << "trace: " << tracePath << " (Chrome trace: chrome://tracing or ui.perfetto.dev)\n";
  }

  if (!options.jsonPath.empty()) {
    std::error_code ec;
    raw_fd_ostream jsonFile(options.jsonPath, ec, sys::fs::OF_None);
    if (ec)
      return makeError("cannot write " + options.jsonPath + ": " + ec.message());
    json::OStream j(jsonFile, 2);
    j.object([&] {
      j.attribute("model", modelPath);
      j.attribute("name", compileOptions.name);
      j.attributeArray("inputs", [&] {
        for (const BenchInput &input : *inputs)
          j.object([&] {
            j.attribute("name", input.name);
            j.attribute("dtype", input.dtype);
            j.attributeArray("shape", [&] {
              for (int64_t d : input.dims)
                j.value(d);
            });
          });
      });
      j.attribute("flops", static_cast<int64_t>(flops->total));
      j.attributeObject("flops_by_op", [&] {
        for (const auto &[op, nodes, count] : flops->byOp)
          j.attribute(op, static_cast<int64_t>(count));
      });
      j.attribute("flops_uncounted_nodes", static_cast<int64_t>(flops->uncounted));
      j.attribute("threads", static_cast<int64_t>(options.threads));
      j.attribute("target_cpu", options.targetCpu);
      j.attribute("iters", static_cast<int64_t>(options.iters));
      j.attribute("warmup", static_cast<int64_t>(options.warmup));
      j.attribute("compile_s", compileSeconds);
      j.attribute("cxx_flags", options.cxxFlags);
      if (built)
        j.attribute("cxx_build_s", buildSeconds);
      else
        j.attribute("cxx_build_s", nullptr);
      j.attribute("harness", runPath);
      j.attribute("first_output_ms", report->firstOutputMs);
      j.attribute("peak_rss_kb", report->peakRssKb);
      j.attribute("arena_bytes", static_cast<int64_t>(report->arenaBytes));
      j.attributeArray("times_ms", [&] {
        for (double t : report->timesMs)
          j.value(t);
      });
      j.attribute("mean_ms", meanMs);
      j.attribute("median_ms", median);
      j.attribute("p90_ms", p90);
      j.attribute("gflops", gflops);
      if (profile) {
        j.attribute("trace", tracePath);
        j.attributeArray("profile", [&] {
          for (const NodeTime *node : byTime(*profile))
            j.object([&] {
              j.attribute("node", codegen::cleanText(node->name));
              j.attribute("op_type", node->opType);
              j.attribute("path", node->path);
              j.attribute("total_ms", node->totalNs / 1e6);
              j.attribute("ms_per_run", node->totalNs / 1e6 / double(profile->runs));
              j.attribute("share", profile->runNs > 0 ? node->totalNs / profile->runNs : 0.0);
              j.attribute("calls", static_cast<int64_t>(node->calls));
            });
        });
      }
    });
    jsonFile << "\n";
    jsonFile.close();
    if (jsonFile.has_error())
      return makeError("cannot write " + options.jsonPath);
  }

  os << "median_ms=" << formatNumber(median) << " p90_ms=" << formatNumber(p90)
     << " gflops=" << formatNumber(gflops) << "\n";
  return Error::success();
}

} // namespace onnxcc
