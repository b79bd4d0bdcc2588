//===- SourceTextTest.cpp - Unit tests of codegen/SourceText.h ------------===//
//
// The literal checks decode what cStringLiteral writes with a decoder of C
// escapes written here from the C standard's rules, independently of the
// encoder; the end-to-end check (a C++ compiler reading the literals of a
// hostile model) is test/lit/compile/hostile-names.test.
//
//===----------------------------------------------------------------------===//
#include "codegen/SourceText.h"

#include "gtest/gtest.h"

#include <cctype>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace onnxcc::codegen;

namespace {

/// The bytes of a sequence of adjacent C string literals separated by
/// whitespace; sets `ok` to false on anything a C compiler would reject or
/// read differently (a raw control byte, a newline inside a literal, an
/// unknown escape, a trigraph).
std::string decodeLiterals(const std::string &src, bool &ok) {
  ok = true;
  std::string out;
  size_t i = 0;
  auto fail = [&] {
    ok = false;
    return out;
  };
  while (i < src.size()) {
    if (std::isspace(static_cast<unsigned char>(src[i]))) {
      ++i;
      continue;
    }
    if (src[i] != '"')
      return fail();
    ++i;
    for (;;) {
      if (i >= src.size())
        return fail();
      unsigned char c = src[i];
      if (c == '"') {
        ++i;
        break;
      }
      if (c < 0x20 || c >= 0x7F)
        return fail();
      if (c == '?' && i + 1 < src.size() && src[i + 1] == '?')
        return fail(); // a trigraph in C89/C99 and C++ before 17
      if (c != '\\') {
        out.push_back(static_cast<char>(c));
        ++i;
        continue;
      }
      if (++i >= src.size())
        return fail();
      char e = src[i];
      if (e >= '0' && e <= '7') {
        int value = 0, digits = 0;
        while (digits < 3 && i < src.size() && src[i] >= '0' && src[i] <= '7') {
          value = value * 8 + (src[i] - '0');
          ++i;
          ++digits;
        }
        if (value > 255)
          return fail();
        out.push_back(static_cast<char>(value));
        continue;
      }
      switch (e) {
      case '"': case '\\': case '?': case '\'': out.push_back(e); break;
      case 'n': out.push_back('\n'); break;
      case 't': out.push_back('\t'); break;
      default: return fail(); // \x would swallow following hex digits
      }
      ++i;
    }
  }
  return out;
}

/// Names a hostile model may hold.
std::vector<std::string> hostileNames() {
  std::vector<std::string> names = {
      "",
      "y */ int injected = 1; /* \"); \n#error pwned",
      "{\"1\": \"1_minute_timer\", \"2\": \"2_minute_timer\"}",
      "back\\slash\\",
      "line\\\nsplice",
      "// comment\nint x;",
      "trigraph ??/ ??= ??' ??( ??) ??! ??< ??> ??- ???",
      std::string("nul\0byte", 8),
      "\x01\x02\x1f\x7f\x80\xff",
      "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
      "\xc3",
      "*/",
      "/*",
      "*",
      "/",
      "**//**",
      "#include </etc/passwd>",
      "\"",
      "\r\n",
      "\\x41\\101",
      "1234567890",
      std::string(5000, 'a'),
  };
  std::mt19937 rng(12345);
  for (int k = 0; k < 200; ++k) {
    std::string s(rng() % 40, '\0');
    for (char &c : s)
      c = static_cast<char>(rng() & 0xFF);
    names.push_back(s);
  }
  return names;
}

TEST(CStringLiteral, GivesBackTheBytes) {
  for (const std::string &s : hostileNames()) {
    for (size_t piece : {size_t(0), size_t(8), size_t(96)}) {
      std::string literal = cStringLiteral(s, piece, "\n    ");
      bool ok = false;
      EXPECT_EQ(decodeLiterals(literal, ok), s) << literal;
      EXPECT_TRUE(ok) << literal;
    }
  }
}

TEST(CStringLiteral, KeepsPrintableTextReadable) {
  EXPECT_EQ(cStringLiteral("conv1.weight"), "\"conv1.weight\"");
  EXPECT_EQ(cStringLiteral("a\"b"), "\"a\\\"b\"");
  EXPECT_EQ(cStringLiteral("??="), "\"\\?\\?=\"");
  // An octal escape is always three digits, so a digit after it stays a digit.
  EXPECT_EQ(cStringLiteral(std::string("\x01") + "7"), "\"\\0017\"");
}

TEST(CStringLiteral, SplitsLongLiterals) {
  std::string literal = cStringLiteral(std::string(1000, 'x'), 96, "\n    ");
  size_t start = 0;
  while (start < literal.size()) {
    size_t end = literal.find('\n', start);
    std::string line = literal.substr(start, end == std::string::npos ? end : end - start);
    EXPECT_LE(line.size(), 96u + 4); // the separator indents by 4
    start = end == std::string::npos ? literal.size() : end + 1;
  }
}

/// Whether `text` can stand in a block or line comment without ending it.
void expectInert(const std::string &text) {
  for (char c : text) {
    EXPECT_TRUE(c >= 0x20 && c < 0x7F) << "byte " << int(static_cast<unsigned char>(c));
  }
  EXPECT_EQ(text.find("*/"), std::string::npos) << text;
  EXPECT_EQ(text.find("/*"), std::string::npos) << text;
  EXPECT_EQ(text.find("??"), std::string::npos) << text;
  // A backslash before the line's end would splice the next line into a
  // `//` comment; none may end the text.
  EXPECT_TRUE(text.empty() || text.back() != '\\') << text;
  // Nor may the text open or close a comment with what the caller puts
  // around it ("/* " + text + " */" or "// '" + text + "'").
  EXPECT_TRUE(text.empty() || text.front() != '/') << text;
  EXPECT_TRUE(text.empty() || text.back() != '*') << text;
}

TEST(CommentText, IsInert) {
  for (const std::string &s : hostileNames()) {
    std::string text = commentText(s);
    expectInert(text);
    std::string block = "/*" + text + "*/";
    EXPECT_EQ(block.find("*/"), block.size() - 2) << block;
  }
}

TEST(CommentText, ShortensAndEscapes) {
  EXPECT_EQ(commentText("conv1/Relu"), "conv1/Relu");
  EXPECT_EQ(commentText("a\nb"), "a\\x0ab");
  EXPECT_EQ(commentText("x */ y"), "x \\x2a/ y");
  EXPECT_EQ(commentText("/*x"), "\\x2f*x");
  EXPECT_EQ(commentText("a*"), "a\\x2a");
  EXPECT_EQ(commentText("??/"), "?\\x3f/");
  EXPECT_EQ(commentText(std::string(200, 'n'), 10), std::string(10, 'n') + "...");
}

TEST(Identifiers, Reserved) {
  for (const char *id : {"int", "class", "namespace", "auto", "restrict", "_Bool", "and",
                         "exp", "expf", "index", "free", "memcpy", "printf", "errno", "NULL",
                         "EOF", "EDOM", "E2BIG", "INT64_C", "UINT8_MAX", "SIZE_MAX", "NAN",
                         "INFINITY", "M_PI", "FLT_MAX", "PRId64", "stdin", "linux", "unix",
                         "size_t", "uint8_t", "std", "main", "_x", "_X", "__x", "a__b", "",
                         "assert", "bool", "true", "I"})
    EXPECT_TRUE(isReservedIdentifier(id)) << id;
  for (const char *id : {"x", "input", "conv1_weight", "Exp", "t", "X", "Y", "data_0",
                         "batch", "seq", "Indices", "scores"})
    EXPECT_FALSE(isReservedIdentifier(id)) << id;
  EXPECT_TRUE(isLibraryFunction("exp"));
  EXPECT_TRUE(isLibraryFunction("index"));
  EXPECT_FALSE(isLibraryFunction("errno"));
  EXPECT_FALSE(isLibraryFunction("int"));
}

/// Whether `id` is a C identifier that no rule reserves.
bool isUsableIdentifier(const std::string &id) {
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0])))
    return false;
  for (char c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return false;
  return !isReservedIdentifier(id);
}

TEST(Identifiers, BaseIsAnIdentifier) {
  for (const std::string &s : hostileNames()) {
    std::string id = identifierBase(s);
    EXPECT_FALSE(id.empty());
    EXPECT_LE(id.size(), 48u) << id;
    EXPECT_EQ(id.find("__"), std::string::npos) << id;
    EXPECT_NE(id[0], '_');
    EXPECT_FALSE(std::isdigit(static_cast<unsigned char>(id[0])));
  }
  EXPECT_EQ(identifierBase("conv1.weight"), "conv1_weight");
  EXPECT_EQ(identifierBase("0"), "t_0");
  EXPECT_EQ(identifierBase("_private"), "t_private");
  // Long names that share their first 48 bytes stay apart.
  std::string a(100, 'a'), b(100, 'a');
  b.back() = 'b';
  EXPECT_NE(identifierBase(a), identifierBase(b));
}

TEST(Identifiers, TableIsUniqueAndStable) {
  auto assign = [](const std::vector<std::string> &names) {
    IdentifierTable table;
    table.reserve("arena");
    table.reserveNumbered("v");
    table.reservePrefix("model_");
    std::vector<std::string> ids;
    for (const std::string &n : names)
      ids.push_back(table.unique(n));
    return ids;
  };
  std::vector<std::string> names = {"a.b", "a_b", "a-b", "int", "exp", "arena", "v12",
                                    "model_x", "__y", "_Z", "x", "x", "p_int"};
  for (const std::string &s : hostileNames())
    names.push_back(s);
  std::vector<std::string> ids = assign(names);
  EXPECT_EQ(ids, assign(names));
  std::set<std::string> seen;
  for (const std::string &id : ids) {
    EXPECT_TRUE(isUsableIdentifier(id)) << id;
    EXPECT_TRUE(seen.insert(id).second) << "twice: " << id;
    EXPECT_NE(id, "arena");
    EXPECT_NE(id.rfind("model_", 0), 0u) << id;
  }
  EXPECT_EQ(ids[0], "a_b");
  EXPECT_EQ(ids[1], "a_b_2");
  EXPECT_EQ(ids[2], "a_b_3");
  EXPECT_EQ(ids[3], "p_int");
  EXPECT_EQ(ids[4], "p_exp");
  EXPECT_EQ(ids[5], "arena_2");
  EXPECT_EQ(ids[6], "p_v12");
  EXPECT_EQ(ids[12], "p_int_2");
}

TEST(Identifiers, SuffixesAvoidNumberedNames) {
  // "" and "\xff" both give "t"/"t_"; with numbered t_N names reserved the
  // suffixes must still find free identifiers (this used to loop forever).
  IdentifierTable table;
  table.reserveNumbered("t_");
  std::set<std::string> seen;
  for (const char *name : {"", "", "", "\xff", "\xff", "\xfe"}) {
    std::string id = table.unique(name);
    EXPECT_TRUE(isUsableIdentifier(id)) << id;
    EXPECT_TRUE(seen.insert(id).second) << "twice: " << id;
  }
}

TEST(CleanText, IsValidUtf8WithoutControls) {
  for (const std::string &s : hostileNames()) {
    std::string clean = cleanText(s);
    for (unsigned char c : clean)
      EXPECT_TRUE(c >= 0x20 && c != 0x7F) << int(c);
    EXPECT_EQ(cleanText(clean), clean); // valid UTF-8 stays as it is
  }
  EXPECT_EQ(cleanText("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(cleanText("a\nb"), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(xmlText("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
  EXPECT_EQ(dotString("a\"b\\c"), "a\\\"b\\\\c");
}

} // namespace
