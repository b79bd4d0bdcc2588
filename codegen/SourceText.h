//===- SourceText.h - Model strings in generated source ---------*- C++ -*-===//
//
// A model file is untrusted input: its tensor, node, graph and dim names,
// doc strings and metadata are arbitrary bytes. These helpers are the only
// way such a string reaches what onnxcc writes: C/C++ source (every
// emitter), DOT, XML/SVG and HTML.
//
//   cStringLiteral   exact bytes, as a C/C++ string literal
//   commentText      a printable, inert form for // and /* */ comments
//   IdentifierTable  valid, unique, stable C identifiers derived from names
//   cleanText        valid UTF-8 without control characters (DOT, XML, JSON)
//
//===----------------------------------------------------------------------===//
#ifndef ONNXCC_CODEGEN_SOURCETEXT_H
#define ONNXCC_CODEGEN_SOURCETEXT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <string>

namespace onnxcc::codegen {

/// `s` as a C/C++ string literal, quotes included, whose bytes are exactly
/// those of `s`, valid in C89 through C23 and C++98 through C++26 with or
/// without trigraphs. Printable ASCII stays readable; `"`, `\` and `?` are
/// escaped (`\?` keeps `??x` from being a trigraph); every other byte is a
/// three-digit octal escape, which no following character can extend. A long
/// literal is split into adjacent pieces of at most `pieceBytes` source bytes
/// (quotes included) joined by `separator` (e.g. "\n    "), which the
/// compiler concatenates.
std::string cStringLiteral(llvm::StringRef s, size_t pieceBytes = 0,
                           llvm::StringRef separator = " ");

/// `s` in a form that can stand inside a `// ...` line comment or a
/// `/* ... */` block comment and cannot end it or change what follows: only
/// printable ASCII; `\`, control bytes and non-ASCII bytes as `\xNN` text;
/// no `*/`, `/*`, trigraph (`??` becomes `?\x3f`), leading `/` or trailing
/// `*`. At most `maxChars` characters of `s` are kept, then "...".
std::string commentText(llvm::StringRef s, size_t maxChars = 96);

/// Whether generated code may not use `id` as the name of a parameter,
/// variable or function: a C or C++ keyword or alternative token, a name the
/// C and C++ standard libraries define (functions, types, macros such as
/// errno, NULL, INT64_C or EDOM), a macro compilers predefine (linux, unix),
/// or an identifier reserved to the implementation (`_Upper`, `__x`, `x__y`,
/// or any name starting with `_`).
bool isReservedIdentifier(llvm::StringRef id);

/// Whether `id` is one of the C library's functions that
/// isReservedIdentifier excludes (exp, index, free, ...): a name a model
/// itself may have, since its C++ wrapper can be left out.
bool isLibraryFunction(llvm::StringRef id);

/// The bytes of `s` as the base of a C identifier: each byte outside
/// [A-Za-z0-9_] becomes `_`, runs of `_` become one, a leading `_` or digit
/// gets a `t` in front, the empty name is `t`. Names longer than 48 bytes
/// keep 39 and a hash of the whole name, so that they stay distinct and
/// stable. Not unique and possibly reserved: see IdentifierTable.
std::string identifierBase(llvm::StringRef s);

/// Gives out C identifiers for model names within one scope: valid, never
/// reserved (isReservedIdentifier), never one of the scope's own names, and
/// unique — `a.b`, `a_b` and `a-b` get `a_b`, `a_b_2`, `a_b_3` in the order
/// asked, so the same model gives the same identifiers every time.
class IdentifierTable {
public:
  /// `id` is taken by the emitter (its own locals, parameters, functions).
  void reserve(llvm::StringRef id) { taken.insert(id); }
  /// Every identifier of the form `prefix` followed by decimal digits is
  /// taken (the emitter's numbered locals such as v12).
  void reserveNumbered(llvm::StringRef prefix) { numbered.insert(prefix); }
  /// Every identifier that starts with `prefix` is taken (NAME_ symbols).
  void reservePrefix(llvm::StringRef prefix) { prefixes.insert(prefix); }

  /// A fresh identifier for the model name `name`: `prefix` followed by
  /// identifierBase(name), with `p_` in front when that is reserved or
  /// excluded by a rule above, then `_2`, `_3`, ... until unused. It is taken from
  /// then on.
  std::string unique(llvm::StringRef name, llvm::StringRef prefix = "");

  /// Whether `id` is in use or excluded by one of the rules.
  bool isTaken(llvm::StringRef id) const;

private:
  bool isExcluded(llvm::StringRef id) const;
  llvm::StringSet<> taken, numbered, prefixes;
};

/// `s` as valid UTF-8 without control characters, for formats that cannot
/// hold them even escaped (XML) or where they would mislead (DOT labels):
/// invalid sequences and control characters (and U+FFFE, U+FFFF) become
/// U+FFFD.
std::string cleanText(llvm::StringRef s);

/// `s` for one line of a message or report on a terminal: control bytes
/// (newlines included) and bytes of invalid UTF-8 as `\xNN`, the rest as it
/// is; more than `maxBytes` bytes are cut at a character boundary, then
/// "...".
std::string displayText(llvm::StringRef s, size_t maxBytes = 200);

/// Clean text (cleanText) escaped for XML/HTML text and attribute values.
std::string xmlText(llvm::StringRef clean);

/// Clean text (cleanText) escaped for the inside of a double-quoted DOT string.
std::string dotString(llvm::StringRef clean);

} // namespace onnxcc::codegen

#endif // ONNXCC_CODEGEN_SOURCETEXT_H
