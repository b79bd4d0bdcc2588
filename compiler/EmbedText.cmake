# Writes IN as a C++ raw string literal named NAME into OUT, so that the
# compiler carries the runtime-support header it copies next to generated
# models instead of reading it from the source tree.
file(READ "${IN}" content)
string(FIND "${content}" ")onnxcc_embed\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN} contains the raw string delimiter )onnxcc_embed\"")
endif()
file(WRITE "${OUT}" "// Generated from ${IN} by EmbedText.cmake. Do not edit.\n"
  "static constexpr const char ${NAME}[] = R\"onnxcc_embed(${content})onnxcc_embed\";\n")
