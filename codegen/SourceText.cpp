//===- SourceText.cpp - Model strings in generated source -----------------===//
#include "codegen/SourceText.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

using llvm::StringRef;

namespace onnxcc::codegen {
namespace {

/// `\xNN` for byte `c`, as text.
std::string hexEscape(unsigned char c) {
  char buf[5];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  return buf;
}

/// Keywords and alternative tokens of C (C89-C23) and C++ (C++98-C++26).
const char *const kKeywords[] = {
    "_Alignas", "_Alignof", "_Atomic", "_BitInt", "_Bool", "_Complex", "_Decimal128",
    "_Decimal32", "_Decimal64", "_Generic", "_Imaginary", "_Noreturn", "_Pragma",
    "_Static_assert", "_Thread_local", "alignas", "alignof", "and", "and_eq", "asm", "auto",
    "bitand", "bitor", "bool", "break", "case", "catch", "char", "char16_t", "char32_t",
    "char8_t", "class", "co_await", "co_return", "co_yield", "compl", "concept", "const",
    "const_cast", "consteval", "constexpr", "constinit", "continue", "contract_assert",
    "decltype", "default", "defined", "delete", "do", "double", "dynamic_cast", "else", "enum",
    "explicit", "export", "extern", "false", "final", "float", "for", "fortran", "friend",
    "goto", "if", "import", "inline", "int", "long", "module", "mutable", "namespace", "new",
    "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "override", "post",
    "pre", "private", "protected", "public", "register", "reinterpret_cast", "requires",
    "restrict", "return", "short", "signed", "sizeof", "static", "static_assert",
    "static_cast", "struct", "switch", "template", "this", "thread_local", "throw", "true",
    "try", "typedef", "typeid", "typename", "typeof", "typeof_unqual", "union", "unsigned",
    "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
    // GNU spellings and predefined macros of GCC and Clang in their gnu modes.
    "__asm__", "__attribute__", "__extension__", "__typeof__", "i386", "linux", "unix",
};

/// Types, objects and macros of the C and C++ standard libraries that
/// generated code or its includer may see: the headers the
/// generated code includes (stddef, stdint, stdbool, cmath, cstring,
/// algorithm, limits) and the ones an application commonly includes before
/// it (stdio, stdlib, errno, assert, complex, ctype, setjmp, signal, time).
const char *const kLibraryNames[] = {
    // Types and objects.
    "FILE", "NULL", "bool", "clock_t", "div_t", "double_t", "errno", "float_t", "fpos_t",
    "int16_t", "int32_t", "int64_t", "int8_t", "int_fast16_t", "int_fast32_t", "int_fast64_t",
    "int_fast8_t", "int_least16_t", "int_least32_t", "int_least64_t", "int_least8_t",
    "intmax_t", "intptr_t", "jmp_buf", "ldiv_t", "lldiv_t", "max_align_t", "mbstate_t",
    "nullptr_t", "offsetof", "ptrdiff_t", "sig_atomic_t", "size_t", "ssize_t", "stderr",
    "stdin", "stdout", "std", "time_t", "tm", "uint16_t", "uint32_t", "uint64_t", "uint8_t",
    "uint_fast16_t", "uint_fast32_t", "uint_fast64_t", "uint_fast8_t", "uint_least16_t",
    "uint_least32_t", "uint_least64_t", "uint_least8_t", "uintmax_t", "uintptr_t", "va_list",
    "wchar_t", "wint_t", "complex", "imaginary", "I", "noreturn", "assert", "static_assert",
    "math_errhandling", "environ", "main",
    // Macros of <stdint.h>, <limits.h>, <float.h>, <stddef.h>, <stdio.h>, <stdlib.h>.
    "BUFSIZ", "CHAR_BIT", "CHAR_MAX", "CHAR_MIN", "CLOCKS_PER_SEC", "DECIMAL_DIG", "EOF",
    "EXIT_FAILURE", "EXIT_SUCCESS", "FILENAME_MAX", "FOPEN_MAX", "HUGE_VAL", "HUGE_VALF",
    "HUGE_VALL", "INFINITY", "INT_MAX", "INT_MIN", "LLONG_MAX", "LLONG_MIN", "LONG_MAX",
    "LONG_MIN", "L_tmpnam", "MATH_ERREXCEPT", "MATH_ERRNO", "MB_CUR_MAX", "MB_LEN_MAX", "NAN",
    "PATH_MAX", "RAND_MAX", "SCHAR_MAX", "SCHAR_MIN", "SEEK_CUR", "SEEK_END", "SEEK_SET",
    "SHRT_MAX", "SHRT_MIN", "SIZE_MAX", "TMP_MAX", "UCHAR_MAX", "UINT_MAX", "ULLONG_MAX",
    "ULONG_MAX", "USHRT_MAX", "WCHAR_MAX", "WCHAR_MIN", "WEOF", "WINT_MAX", "WINT_MIN",
    "PTRDIFF_MAX", "PTRDIFF_MIN", "SIG_ATOMIC_MAX", "SIG_ATOMIC_MIN", "SIG_DFL", "SIG_ERR",
    "SIG_IGN", "NDEBUG", "DEBUG", "TRUE", "FALSE",
};

/// Functions of the C library. A parameter may legally shadow one, but the
/// generated code keeps clear of them all the same. Unlike the names above,
/// a model may be named like one of these: its C++ wrapper namespace is then
/// left out (NAME_NO_CXX_WRAPPER). POSIX's Bessel functions (j0, y1, ...) are
/// not here: they are common tensor names, and shadowing them is harmless.
const char *const kLibraryFunctions[] = {
    // <math.h> and <cmath>.
    "abs", "acos", "acosf", "acosh", "acoshf", "acoshl", "acosl", "asin", "asinf", "asinh",
    "asinhf", "asinhl", "asinl", "atan", "atan2", "atan2f", "atan2l", "atanf", "atanh",
    "atanhf", "atanhl", "atanl", "cbrt", "cbrtf", "cbrtl", "ceil", "ceilf", "ceill",
    "copysign", "copysignf", "copysignl", "cos", "cosf", "cosh", "coshf", "coshl", "cosl",
    "erf", "erfc", "erfcf", "erfcl", "erff", "erfl", "exp", "exp10", "exp2", "exp2f", "exp2l",
    "expf", "expl", "expm1", "expm1f", "expm1l", "fabs", "fabsf", "fabsl", "fdim", "fdimf",
    "fdiml", "floor", "floorf", "floorl", "fma", "fmaf", "fmal", "fmax", "fmaxf", "fmaxl",
    "fmin", "fminf", "fminl", "fmod", "fmodf", "fmodl", "fpclassify", "frexp", "frexpf",
    "frexpl", "gamma", "hypot", "hypotf", "hypotl", "ilogb", "ilogbf", "ilogbl", "isfinite",
    "isgreater", "isgreaterequal", "isinf", "isless", "islessequal", "islessgreater",
    "isnan", "isnormal", "isunordered", "ldexp", "ldexpf", "ldexpl",
    "lgamma", "lgammaf", "lgammal", "llrint", "llrintf", "llrintl", "llround", "llroundf",
    "llroundl", "log", "log10", "log10f", "log10l", "log1p", "log1pf", "log1pl", "log2",
    "log2f", "log2l", "logb", "logbf", "logbl", "logf", "logl", "lrint", "lrintf", "lrintl",
    "lround", "lroundf", "lroundl", "modf", "modff", "modfl", "nan", "nanf", "nanl",
    "nearbyint", "nearbyintf", "nearbyintl", "nextafter", "nextafterf", "nextafterl",
    "nexttoward", "nexttowardf", "nexttowardl", "pow", "powf", "powl", "remainder",
    "remainderf", "remainderl", "remquo", "remquof", "remquol", "rint", "rintf", "rintl",
    "round", "roundf", "roundl", "scalb", "scalbln", "scalblnf", "scalblnl", "scalbn",
    "scalbnf", "scalbnl", "signbit", "signgam", "sin", "sincos", "sinf", "sinh", "sinhf",
    "sinhl", "sinl", "sqrt", "sqrtf", "sqrtl", "tan", "tanf", "tanh", "tanhf", "tanhl",
    "tanl", "tgamma", "tgammaf", "tgammal", "trunc", "truncf", "truncl", 
    // <string.h>, <strings.h>, <ctype.h>.
    "bcmp", "bcopy", "bzero", "ffs", "index", "isalnum", "isalpha", "isascii", "isblank",
    "iscntrl", "isdigit", "isgraph", "islower", "isprint", "ispunct", "isspace", "isupper",
    "isxdigit", "memccpy", "memchr", "memcmp", "memcpy", "memmem", "memmove", "memrchr",
    "memset", "rindex", "stpcpy", "stpncpy", "strcasecmp", "strcat", "strchr", "strcmp",
    "strcoll", "strcpy", "strcspn", "strdup", "strerror", "strlen", "strncasecmp",
    "strncat", "strncmp", "strncpy", "strndup", "strnlen", "strpbrk", "strrchr", "strsep",
    "strsignal", "strspn", "strstr", "strtok", "strtok_r", "strxfrm", "toascii", "tolower",
    "toupper",
    // <stdlib.h>, <stdio.h>, <time.h>, <signal.h>, <setjmp.h>, <unistd.h>.
    "abort", "aligned_alloc", "atexit", "atof", "atoi", "atol", "atoll", "at_quick_exit",
    "bsearch", "calloc", "div", "exit", "free", "getenv", "labs", "ldiv", "llabs", "lldiv",
    "malloc", "mblen", "mbstowcs", "mbtowc", "qsort", "quick_exit", "rand", "random",
    "realloc", "srand", "srandom", "strtod", "strtof", "strtol", "strtold", "strtoll",
    "strtoul", "strtoull", "system", "wcstombs", "wctomb", "clearerr", "fclose", "feof",
    "ferror", "fflush", "fgetc", "fgetpos", "fgets", "fopen", "fprintf", "fputc", "fputs",
    "fread", "freopen", "fscanf", "fseek", "fsetpos", "ftell", "fwrite", "getc", "getchar",
    "gets", "perror", "printf", "putc", "putchar", "puts", "remove", "rename", "rewind",
    "scanf", "setbuf", "setvbuf", "snprintf", "sprintf", "sscanf", "tmpfile", "tmpnam",
    "ungetc", "vfprintf", "vprintf", "vsnprintf", "vsprintf", "asctime", "clock",
    "ctime", "difftime", "gmtime", "localtime", "mktime", "strftime", "time", "timespec",
    "raise", "signal", "longjmp", "setjmp", "sigsetjmp", "siglongjmp", "alarm", "close",
    "dup", "fork", "kill", "open", "pipe", "read", "sleep", "unlink", "write", "select",
    "poll", "stat", "wait",
};

/// Prefixes of whole families of library macros: errno values (E + digit
/// or capital, reserved by the C standard), <stdint.h> limits and constant
/// macros, <inttypes.h> format macros, <math.h> classification and
/// constants, <float.h>, signals and locale categories.
bool isLibraryMacroFamily(StringRef id) {
  auto upperOrDigit = [](char c) { return llvm::isDigit(c) || (c >= 'A' && c <= 'Z'); };
  if (id.size() >= 2 && id[0] == 'E' && upperOrDigit(id[1]))
    return true;
  for (StringRef p : {"INT", "UINT", "PRI", "SCN", "FP_", "M_", "FLT_", "DBL_", "LDBL_", "SIG",
                      "LC_", "ATOMIC_", "FE_", "TIME_"})
    if (id.starts_with(p) && id.size() > p.size() &&
        llvm::all_of(id, [&](char c) { return upperOrDigit(c) || c == '_' || c == 'x' ||
                                              c == 'd' || c == 'i' || c == 'o' || c == 'u' ||
                                              c == 'X'; }))
      return true;
  return false;
}

template <size_t N> bool contains(const char *const (&table)[N], StringRef id) {
  return std::find_if(std::begin(table), std::end(table),
                      [&](const char *s) { return id == s; }) != std::end(table);
}

/// 32-bit FNV-1a of `s`: the same on every machine.
uint32_t fnv1a(StringRef s) {
  uint32_t h = 2166136261u;
  for (unsigned char c : s) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

} // namespace

std::string cStringLiteral(StringRef s, size_t pieceBytes, StringRef separator) {
  std::string out = "\"";
  size_t pieceStart = 0; // where the current piece's opening quote is
  auto append = [&](const std::string &text) {
    // The piece with `text` and its closing quote.
    if (pieceBytes && out.size() - pieceStart + text.size() + 1 > pieceBytes &&
        out.size() - pieceStart > 1) {
      out += "\"";
      out += separator.str();
      pieceStart = out.size();
      out += "\"";
    }
    out += text;
  };
  for (unsigned char c : s) {
    if (c == '"' || c == '\\' || c == '?') {
      append(std::string{'\\', static_cast<char>(c)});
    } else if (c >= 0x20 && c < 0x7F) {
      append(std::string(1, static_cast<char>(c)));
    } else {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      append(buf);
    }
  }
  out += "\"";
  return out;
}

std::string commentText(StringRef s, size_t maxChars) {
  bool cut = s.size() > maxChars;
  StringRef kept = s.take_front(maxChars);
  std::string out;
  for (size_t i = 0; i < kept.size(); ++i) {
    unsigned char c = kept[i];
    char prev = out.empty() ? ' ' : out.back();
    bool escape = c < 0x20 || c >= 0x7F || c == '\\' ||
                  (c == '/' && (prev == '*' || out.empty())) || (c == '*' && prev == '/') ||
                  (c == '?' && prev == '?');
    // A '*' that the next character would close the comment with, or that
    // ends the text (whatever the caller puts next).
    if (c == '*' && (i + 1 == kept.size() ? !cut : kept[i + 1] == '/'))
      escape = true;
    out += escape ? hexEscape(c) : std::string(1, static_cast<char>(c));
  }
  if (cut)
    out += "...";
  return out;
}

bool isReservedIdentifier(StringRef id) {
  if (id.empty() || id.starts_with("_") || id.contains("__"))
    return true;
  return contains(kKeywords, id) || contains(kLibraryNames, id) ||
         contains(kLibraryFunctions, id) || isLibraryMacroFamily(id);
}

bool isLibraryFunction(StringRef id) { return contains(kLibraryFunctions, id); }

std::string identifierBase(StringRef s) {
  std::string id;
  for (char c : s) {
    char m = llvm::isAlnum(c) || c == '_' ? c : '_';
    if (m == '_' && !id.empty() && id.back() == '_')
      continue;
    id.push_back(m);
  }
  if (id.empty() || id[0] == '_' || llvm::isDigit(id[0]))
    id = (id.empty() || id[0] == '_' ? "t" : "t_") + id;
  if (id.size() > 48) {
    char hash[10];
    std::snprintf(hash, sizeof hash, "_%08x", fnv1a(s));
    id = id.substr(0, 39);
    if (id.back() == '_')
      id.pop_back();
    id += hash;
  }
  return id;
}

bool IdentifierTable::isExcluded(StringRef id) const {
  if (isReservedIdentifier(id))
    return true;
  for (const auto &p : prefixes)
    if (id.starts_with(p.getKey()))
      return true;
  for (const auto &p : numbered) {
    StringRef rest = id;
    if (rest.consume_front(p.getKey()) && !rest.empty() && llvm::all_of(rest, llvm::isDigit))
      return true;
  }
  return false;
}

bool IdentifierTable::isTaken(StringRef id) const {
  return taken.contains(id) || isExcluded(id);
}

std::string IdentifierTable::unique(StringRef name, StringRef prefix) {
  std::string id = prefix.str() + identifierBase(name);
  if (isExcluded(id))
    id = "p_" + id;
  // The suffix never makes a `__` (reserved) from an id that ends in `_`.
  std::string stem = id.back() == '_' ? id : id + "_";
  // Digits after the stem must not make a numbered name of the scope's own
  // ("t" taken twice would give t_2, t_3, ... which a "t_" rule excludes).
  if (isExcluded(stem + "0"))
    stem += "n";
  std::string candidate = id;
  for (int k = 2; isTaken(candidate); ++k)
    candidate = stem + std::to_string(k);
  taken.insert(candidate);
  return candidate;
}

std::string cleanText(StringRef s) {
  std::string valid = llvm::json::isUTF8(s) ? s.str() : llvm::json::fixUTF8(s);
  std::string out;
  out.reserve(valid.size());
  for (size_t i = 0; i < valid.size(); ++i) {
    unsigned char c = valid[i];
    // U+FFFE and U+FFFF are not XML characters either.
    if (c == 0xEF && i + 2 < valid.size() && (unsigned char)valid[i + 1] == 0xBF &&
        ((unsigned char)valid[i + 2] == 0xBE || (unsigned char)valid[i + 2] == 0xBF)) {
      out += "\xEF\xBF\xBD";
      i += 2;
      continue;
    }
    if (c < 0x20 || c == 0x7F)
      out += "\xEF\xBF\xBD";
    else
      out.push_back(static_cast<char>(c));
  }
  return out;
}

std::string displayText(StringRef s, size_t maxBytes) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    unsigned char c = s[i];
    // The length of the UTF-8 sequence starting here, 0 if invalid.
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n > 1 && (i + n > s.size() || !llvm::json::isUTF8(s.substr(i, n))))
      n = 0;
    if (out.size() + std::max<size_t>(n, 1) > maxBytes) {
      out += "...";
      break;
    }
    if (n == 0 || c < 0x20 || c == 0x7F) {
      out += hexEscape(c);
      ++i;
      continue;
    }
    out += s.substr(i, n).str();
    i += n;
  }
  return out;
}

std::string xmlText(StringRef clean) {
  std::string out;
  for (char c : clean) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&#39;"; break;
    default: out.push_back(c);
    }
  }
  return out;
}

std::string dotString(StringRef clean) {
  std::string out;
  for (char c : clean) {
    if (c == '"' || c == '\\')
      out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

} // namespace onnxcc::codegen
