# Writes IN to OUT without `option optimize_for = LITE_RUNTIME;`, and with the
# fields of IR versions 9-10 that model-local functions need (overloads,
# attribute defaults, value_info) where Debian's IR-8 onnx.proto lacks them:
# without them the parser would keep them only as unknown fields.
file(READ "${IN}" content)
string(REPLACE "option optimize_for = LITE_RUNTIME;" "" content "${content}")
string(FIND "${content}" "repeated AttributeProto attribute_proto" hasFunctionFields)
if(hasFunctionFields EQUAL -1)
  # NodeProto ends with its doc_string (field 6) and a closing brace.
  string(REPLACE "  optional string doc_string = 6;\n}"
    "  optional string doc_string = 6;\n  optional string overload = 8;\n}"
    content "${content}")
  # FunctionProto ends with its domain (field 10).
  string(REPLACE "  optional string domain = 10;\n}"
    "  optional string domain = 10;\n  repeated AttributeProto attribute_proto = 11;\n  repeated ValueInfoProto value_info = 12;\n  optional string overload = 13;\n}"
    content "${content}")
  string(FIND "${content}" "optional string overload = 13;" patchedFunction)
  string(FIND "${content}" "optional string overload = 8;" patchedNode)
  if(patchedFunction EQUAL -1 OR patchedNode EQUAL -1)
    message(FATAL_ERROR "${IN}: cannot add the IR 9/10 function fields (unexpected layout)")
  endif()
endif()
file(WRITE "${OUT}" "${content}")
