// RUN: onnxcc-opt %s --split-input-file --onnx-infer-shapes | FileCheck %s
// Shapes of TensorScatter (24), CenterCropPad (18), RegexFullMatch and
// StringSplit (20).

// TensorScatter writes into a copy of the cache: the cache's shape.
// CHECK-LABEL: func.func @tensor_scatter
// CHECK: "onnx.TensorScatter"{{.*}} -> tensor<2x1x6x4xf32>
func.func @tensor_scatter(%cache: tensor<2x1x6x4xf32>, %upd: tensor<2x1x2x4xf32>, %idx: tensor<2xi64>) -> tensor<*xf32> {
  %0 = "onnx.TensorScatter"(%cache, %upd, %idx) <{axis = -2 : i64, mode = "circular"}> : (tensor<2x1x6x4xf32>, tensor<2x1x2x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// CenterCropPad with a shape that arrives at run time keeps the declared
// result (run() checks the shape against it).
// CHECK-LABEL: func.func @center_crop_pad
// CHECK: "onnx.CenterCropPad"{{.*}} -> tensor<3x9xf32>
func.func @center_crop_pad(%x: tensor<5x7xf32>, %s: tensor<2xi64>) -> tensor<3x9xf32> {
  %0 = "onnx.CenterCropPad"(%x, %s) : (tensor<5x7xf32>, tensor<2xi64>) -> tensor<3x9xf32>
  return %0 : tensor<3x9xf32>
}

// -----

// CHECK-LABEL: func.func @regex
// CHECK: "onnx.RegexFullMatch"{{.*}} -> tensor<3xi1>
func.func @regex(%x: tensor<3x!onnx.string>) -> tensor<*xi1> {
  %0 = "onnx.RegexFullMatch"(%x) <{pattern = "a[0-9]+b"}> : (tensor<3x!onnx.string>) -> tensor<*xi1>
  return %0 : tensor<*xi1>
}

// -----

// StringSplit's piece count is a data-dependent dim (bounded by maxsplit + 1).
// CHECK-LABEL: func.func @split
// CHECK: "onnx.StringSplit"{{.*}}onnxcc.data_dims = ["StringSplit#0"]{{.*}} -> (tensor<3x?x!onnx.string>, tensor<3xi64>)
func.func @split(%x: tensor<3x!onnx.string>) -> (tensor<*x!onnx.string>, tensor<*xi64>) {
  %y, %n = "onnx.StringSplit"(%x) <{delimiter = ",", maxsplit = 2 : i64}> : (tensor<3x!onnx.string>) -> (tensor<*x!onnx.string>, tensor<*xi64>)
  return %y, %n : tensor<*x!onnx.string>, tensor<*xi64>
}
