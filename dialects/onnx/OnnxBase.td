//===- OnnxBase.td - The onnx dialect, its types and op base -*- tablegen -*-===//
#ifndef ONNXCC_ONNX_BASE_TD
#define ONNXCC_ONNX_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/DialectBase.td"

def Onnx_Dialect : Dialect {
  let name = "onnx";
  let cppNamespace = "::onnxcc::onnx";
  let summary = "The ONNX operator set (ai.onnx) as an MLIR dialect";
  let description = [{
    One op per ONNX operator, each in the form of its newest version up to
    opset 17. The importer normalizes older opsets to that form. Absent
    optional inputs and outputs have type `none`.
  }];
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::mlir::func::FuncDialect"];
  let extraClassDeclaration = [{
    void registerTypes();
  }];
}

class Onnx_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Onnx_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Onnx_StringType : Onnx_Type<"String", "string"> {
  let summary = "ONNX string element type";
}

def Onnx_SeqType : Onnx_Type<"Seq", "seq"> {
  let summary = "ONNX sequence of tensors";
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def Onnx_OptType : Onnx_Type<"Opt", "opt"> {
  let summary = "ONNX optional value (tensor or sequence)";
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

class Onnx_Op<string mnemonic, list<Trait> traits = []>
    : Op<Onnx_Dialect, mnemonic, traits>;

#endif // ONNXCC_ONNX_BASE_TD
