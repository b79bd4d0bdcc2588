//===- onnxcc-fuzz-emit.cpp - libFuzzer target of the names in emitted code ===//
//
// Each input is up to nine strings separated by NUL bytes. They become the
// names and strings of a small valid model (x[N, 4] -> Relu -> Mul w -> y,
// and y -> Softmax -> ZipMap -> probs): the input, the output, the dim, the
// Relu node, the weight, the graph, a doc string, a metadata value and a
// class label of the ZipMap (a key of the header's map table). The model goes through `onnxcc compile`;
// then the generated header and source must
//   - hold only printable ASCII, tabs and newlines,
//   - give the same tokens, outside comments and string literals and up to
//     the spelling of identifiers, as the same model with plain names: no
//     byte of a name becomes a token of code, a directive or a comment end.
// With ONNXCC_FUZZ_CXX set (a C++ compiler), each source is also checked by
// `$ONNXCC_FUZZ_CXX -std=c++17 -fsyntax-only -Wall -Werror`. A model that
// onnxcc refuses (duplicate names) is a valid result; a crash, a failed
// check (abort) or a sanitizer report is a bug.
//
//   onnxcc-fuzz-emit -rss_limit_mb=2048 -timeout=30 -max_len=4096 CORPUS_DIR
//
//===----------------------------------------------------------------------===//
#include "compiler/Driver.h"

#include "onnx.pb.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

/// The strings of the model, in the order an input gives them.
struct Names {
  std::string input = "x", output = "y", dim = "N", node = "relu", weight = "w",
              graph = "g", doc = "doc", metadata = "m", label = "a";
};

std::string makeModel(const Names &n) {
  ::onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name(n.doc);
  model.set_doc_string(n.doc);
  auto *opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  auto *mlOpset = model.add_opset_import();
  mlOpset->set_domain("ai.onnx.ml");
  mlOpset->set_version(1);
  auto *prop = model.add_metadata_props();
  prop->set_key(n.metadata);
  prop->set_value(n.metadata);
  ::onnx::GraphProto *g = model.mutable_graph();
  g->set_name(n.graph);
  g->set_doc_string(n.doc);
  auto addValue = [&](::onnx::ValueInfoProto *v, const std::string &name) {
    v->set_name(name);
    auto *t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(::onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_param(n.dim);
    t->mutable_shape()->add_dim()->set_dim_value(4);
  };
  addValue(g->add_input(), n.input);
  addValue(g->add_output(), n.output);
  auto *w = g->add_initializer();
  w->set_name(n.weight);
  w->set_data_type(::onnx::TensorProto::FLOAT);
  w->add_dims(4);
  for (float f : {0.5f, -1.0f, 2.0f, 3.0f})
    w->add_float_data(f);
  auto *relu = g->add_node();
  relu->set_op_type("Relu");
  relu->set_name(n.node);
  relu->set_doc_string(n.doc);
  relu->add_input(n.input);
  relu->add_output("relu_out");
  auto *mul = g->add_node();
  mul->set_op_type("Mul");
  mul->set_name(n.node + "/mul");
  mul->add_input("relu_out");
  mul->add_input(n.weight);
  mul->add_output(n.output);
  auto *softmax = g->add_node();
  softmax->set_op_type("Softmax");
  softmax->add_input(n.output);
  softmax->add_output("softmax_out");
  auto *zip = g->add_node();
  zip->set_op_type("ZipMap");
  zip->set_domain("ai.onnx.ml");
  zip->add_input("softmax_out");
  zip->add_output("probs");
  auto *labels = zip->add_attribute();
  labels->set_name("classlabels_strings");
  labels->set_type(::onnx::AttributeProto::STRINGS);
  for (const std::string &label : {n.label, std::string("b"), std::string("c"), std::string("d")})
    labels->add_strings(label);
  auto *probs = g->add_output();
  probs->set_name("probs");
  auto *map = probs->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_map_type();
  map->set_key_type(::onnx::TensorProto::STRING);
  map->mutable_value_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::FLOAT);
  return model.SerializeAsString();
}

/// A token of C/C++ source outside comments; adjacent string literals are
/// one token, identifiers all read `id`.
std::vector<std::string> tokens(llvm::StringRef text) {
  std::vector<std::string> out;
  size_t i = 0, n = text.size();
  auto isIdent = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  while (i < n) {
    char c = text[i];
    if (text.substr(i).starts_with("//")) {
      size_t end = text.find('\n', i);
      if (end == llvm::StringRef::npos)
        break;
      if (end > i && text[end - 1] == '\\')
        out.push_back("<line comment ends in a backslash>");
      i = end;
      continue;
    }
    if (text.substr(i).starts_with("/*")) {
      size_t end = text.find("*/", i + 2);
      if (end == llvm::StringRef::npos) {
        out.push_back("<unterminated comment>");
        break;
      }
      i = end + 2;
      continue;
    }
    if (c == '"' || c == '\'') {
      size_t j = i + 1;
      while (j < n && text[j] != c && text[j] != '\n')
        j += text[j] == '\\' ? 2 : 1;
      if (j >= n || text[j] == '\n')
        out.push_back("<unterminated literal>");
      std::string kind = c == '"' ? "<string>" : "<char>";
      if (out.empty() || out.back() != kind || kind != "<string>")
        out.push_back(kind);
      i = j + 1;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (isIdent(c)) {
      size_t j = i;
      while (j < n && isIdent(text[j]))
        ++j;
      llvm::StringRef word = text.slice(i, j);
      // Numbers, keywords (which no identifier made from a name can be) and
      // the word after a `#` stay; other identifiers are `id`.
      bool keep = std::isdigit(static_cast<unsigned char>(c)) ||
                  (!out.empty() && out.back() == "#") ||
                  llvm::is_contained({"if", "else", "extern", "const", "static", "return",
                                      "int", "void", "struct", "namespace", "typedef"},
                                     word);
      out.push_back(keep ? word.str() : "id");
      i = j;
      continue;
    }
    out.push_back(std::string(1, c));
    ++i;
  }
  return out;
}

/// The tokens of the generated NAME.h and NAME.cpp in `dir`, or an empty
/// list when a file is missing. Aborts on a byte no source should hold.
std::vector<std::string> generatedTokens(llvm::StringRef dir) {
  std::vector<std::string> all;
  for (const char *file : {"fuzz.h", "fuzz.cpp"}) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, file);
    auto buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer)
      return {};
    llvm::StringRef text = (*buffer)->getBuffer();
    for (unsigned char c : text)
      if ((c < 0x20 && c != '\n' && c != '\t') || c >= 0x7F) {
        std::fprintf(stderr, "onnxcc-fuzz-emit: byte 0x%02x in %s\n", c, file);
        std::abort();
      }
    std::vector<std::string> t = tokens(text);
    all.push_back(std::string("<file ") + file + ">");
    all.insert(all.end(), t.begin(), t.end());
  }
  return all;
}

/// A folder of this process for the model and the generated files, removed
/// when the process exits.
const std::string &workDir() {
  static std::string dir = [] {
    llvm::SmallString<128> path;
    if (llvm::sys::fs::createUniqueDirectory("onnxcc-fuzz-emit", path))
      std::abort();
    return std::string(path);
  }();
  static const bool cleanup = [] {
    return std::atexit([] { llvm::sys::fs::remove_directories(workDir()); }) == 0;
  }();
  (void)cleanup;
  return dir;
}

/// Compiles the model of `names`; the tokens of what it wrote, or an empty
/// list when onnxcc refused the model.
std::vector<std::string> compileAndLex(const Names &names) {
  llvm::SmallString<256> modelPath(workDir()), outDir(workDir());
  llvm::sys::path::append(modelPath, "model.onnx");
  llvm::sys::path::append(outDir, "out");
  llvm::sys::fs::remove_directories(outDir);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(modelPath, ec);
    if (ec)
      std::abort();
    os << makeModel(names);
  }
  onnxcc::CompileOptions options;
  options.name = "fuzz";
  options.outDir = std::string(outDir);
  options.targetCpu = "generic";
  if (llvm::Error e = onnxcc::compileModel(modelPath, options, llvm::nulls())) {
    llvm::consumeError(std::move(e));
    return {};
  }
  return generatedTokens(outDir);
}

void syntaxCheck() {
  const char *cxx = std::getenv("ONNXCC_FUZZ_CXX");
  if (!cxx || !*cxx)
    return;
  auto program = llvm::sys::findProgramByName(cxx);
  if (!program)
    std::abort();
  llvm::SmallString<256> source(workDir());
  llvm::sys::path::append(source, "out", "fuzz.cpp");
  llvm::SmallVector<llvm::StringRef> args = {*program, "-std=c++17", "-fsyntax-only",
                                             "-Wall", "-Werror", source};
  if (llvm::sys::ExecuteAndWait(*program, args) != 0) {
    std::fprintf(stderr, "onnxcc-fuzz-emit: the generated source does not build\n");
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::vector<std::string> baseline = compileAndLex(Names());
  if (baseline.empty())
    std::abort(); // the plain model must compile
  Names names;
  std::string *fields[] = {&names.input,  &names.output, &names.dim,
                           &names.node,   &names.weight, &names.graph,
                           &names.doc,    &names.metadata, &names.label};
  llvm::StringRef rest(reinterpret_cast<const char *>(data), size);
  for (std::string *field : fields) {
    if (rest.empty())
      break;
    auto [part, tail] = rest.split('\0');
    *field = part.str();
    rest = tail;
  }
  // Tensors that share a name make another graph (a weight that is also an
  // input is no input): nothing to compare with.
  std::vector<llvm::StringRef> tensors = {names.input, names.output, names.weight, "relu_out",
                                          "softmax_out", "probs"};
  for (size_t a = 0; a < tensors.size(); ++a)
    for (size_t b = a + 1; b < tensors.size(); ++b)
      if (tensors[a] == tensors[b])
        return 0;
  if (names.input.empty() || names.output.empty() || names.weight.empty() || names.dim.empty())
    return 0;
  std::vector<std::string> got = compileAndLex(names);
  if (got.empty())
    return 0; // refused: fine
  if (got != baseline) {
    size_t k = 0;
    while (k < got.size() && k < baseline.size() && got[k] == baseline[k])
      ++k;
    std::fprintf(stderr, "onnxcc-fuzz-emit: token %zu differs: '%s' instead of '%s'\n", k,
                 k < got.size() ? got[k].c_str() : "<end>",
                 k < baseline.size() ? baseline[k].c_str() : "<end>");
    std::abort();
  }
  syntaxCheck();
  return 0;
}
