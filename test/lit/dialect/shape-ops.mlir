// RUN: onnxcc-opt %s --onnx-infer-shapes --split-input-file | FileCheck %s

/// Reshape: 0 copies the input dim, -1 takes what is left.
// CHECK-LABEL: func.func @reshape_zero_and_minus_one(
// CHECK: %[[R:.*]] = "onnx.Reshape"{{.*}} -> tensor<2x12xf32>
// CHECK: return %[[R]]
func.func @reshape_zero_and_minus_one(%a: tensor<2x3x4xf32>) -> tensor<*xf32> {
  %s = "onnx.Constant"() {value = dense<[0, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = "onnx.Reshape"(%a, %s) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// A symbolic dim copied by 0 cancels against the input's, so -1 is static:
/// [batch, 6] to [0, 2, -1] is [batch, 2, 3].
// CHECK-LABEL: func.func @reshape_symbolic_cancels(
// CHECK: %[[R:.*]] = "onnx.Reshape"{{.*}} -> tensor<?x2x3xf32>
// CHECK: return %[[R]] : tensor<?x2x3xf32>
func.func @reshape_symbolic_cancels(%a: tensor<?x6xf32> {onnx.dim_params = ["batch", ""]}) -> tensor<*xf32> {
  %s = "onnx.Constant"() {value = dense<[0, 2, -1]> : tensor<3xi64>} : () -> tensor<3xi64>
  %0 = "onnx.Reshape"(%a, %s) : (tensor<?x6xf32>, tensor<3xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Without a name the dynamic dim cannot cancel: -1 stays unknown.
// CHECK-LABEL: func.func @reshape_unnamed_dynamic(
// CHECK: "onnx.Reshape"{{.*}} -> tensor<?x2x?xf32>
func.func @reshape_unnamed_dynamic(%a: tensor<?x6xf32>) -> tensor<*xf32> {
  %s = "onnx.Constant"() {value = dense<[0, 2, -1]> : tensor<3xi64>} : () -> tensor<3xi64>
  %0 = "onnx.Reshape"(%a, %s) : (tensor<?x6xf32>, tensor<3xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// allowzero makes 0 a real zero-sized dim.
// CHECK-LABEL: func.func @reshape_allowzero(
// CHECK: "onnx.Reshape"{{.*}} -> tensor<0x4xf32>
func.func @reshape_allowzero(%a: tensor<4x0xf32>) -> tensor<*xf32> {
  %s = "onnx.Constant"() {value = dense<[0, 4]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = "onnx.Reshape"(%a, %s) {allowzero = 1 : i64} : (tensor<4x0xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// A shape that is not constant still gives the rank.
// CHECK-LABEL: func.func @reshape_dynamic_shape(
// CHECK: "onnx.Reshape"{{.*}} -> tensor<?x?x?xf32>
func.func @reshape_dynamic_shape(%a: tensor<24xf32>, %s: tensor<3xi64>) -> tensor<*xf32> {
  %0 = "onnx.Reshape"(%a, %s) : (tensor<24xf32>, tensor<3xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Flatten multiplies the dims on each side of axis; a lone symbolic dim
/// before the axis passes through.
// CHECK-LABEL: func.func @flatten(
// CHECK: "onnx.Flatten"{{.*}} -> tensor<6x20xf32>
// CHECK: "onnx.Flatten"{{.*}} -> tensor<1x120xf32>
// CHECK: "onnx.Flatten"{{.*}} -> tensor<?x12xf32>
func.func @flatten(%a: tensor<2x3x4x5xf32>, %b: tensor<?x3x4xf32> {onnx.dim_params = ["batch", "", ""]}) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %0 = "onnx.Flatten"(%a) {axis = 2 : i64} : (tensor<2x3x4x5xf32>) -> tensor<*xf32>
  %1 = "onnx.Flatten"(%a) {axis = 0 : i64} : (tensor<2x3x4x5xf32>) -> tensor<*xf32>
  %2 = "onnx.Flatten"(%b) : (tensor<?x3x4xf32>) -> tensor<*xf32>
  return %0, %1, %2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

/// Transpose without perm reverses the dims.
// CHECK-LABEL: func.func @transpose(
// CHECK: "onnx.Transpose"{{.*}} -> tensor<4x3x2xf32>
// CHECK: "onnx.Transpose"{{.*}} -> tensor<2x4x3xf32>
func.func @transpose(%a: tensor<2x3x4xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0 = "onnx.Transpose"(%a) : (tensor<2x3x4xf32>) -> tensor<*xf32>
  %1 = "onnx.Transpose"(%a) {perm = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// Squeeze with constant axes, Squeeze of every 1 without axes, Unsqueeze
/// with axes counted in the output rank.
// CHECK-LABEL: func.func @squeeze_unsqueeze(
// CHECK: "onnx.Squeeze"{{.*}} -> tensor<3x4xf32>
// CHECK: "onnx.Squeeze"{{.*}} -> tensor<3xf32>
// CHECK: "onnx.Unsqueeze"{{.*}} -> tensor<1x3x4x1xf32>
func.func @squeeze_unsqueeze(%a: tensor<3x1x4xf32>, %b: tensor<1x3x1xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %ax = "onnx.Constant"() {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.Squeeze"(%a, %ax) : (tensor<3x1x4xf32>, tensor<1xi64>) -> tensor<*xf32>
  %1 = "onnx.Squeeze"(%b, %n) : (tensor<1x3x1xf32>, none) -> tensor<*xf32>
  %ux = "onnx.Constant"() {value = dense<[0, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %2 = "onnx.Unsqueeze"(%0, %ux) : (tensor<*xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0, %1, %2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

/// Concat sums the axis dim; the symbolic batch of both inputs is kept.
// CHECK-LABEL: func.func @concat(
// CHECK: %[[C:.*]] = "onnx.Concat"{{.*}} -> tensor<?x8xf32>
// CHECK: return %[[C]]
func.func @concat(%a: tensor<?x3xf32> {onnx.dim_params = ["batch", ""]}, %b: tensor<?x5xf32> {onnx.dim_params = ["batch", ""]}) -> tensor<*xf32> {
  %0 = "onnx.Concat"(%a, %b) {axis = -1 : i64} : (tensor<?x3xf32>, tensor<?x5xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Split by constant sizes, and into equal parts when split is absent.
// CHECK-LABEL: func.func @split(
// CHECK: "onnx.Split"{{.*}} -> (tensor<3x2xf32>, tensor<3x4xf32>)
// CHECK: "onnx.Split"{{.*}} -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>)
func.func @split(%a: tensor<3x6xf32>, %b: tensor<9x2xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %s = "onnx.Constant"() {value = dense<[2, 4]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0, %1 = "onnx.Split"(%a, %s) {axis = 1 : i64} : (tensor<3x6xf32>, tensor<2xi64>) -> (tensor<*xf32>, tensor<*xf32>)
  %n = "onnx.NoValue"() : () -> none
  %2, %3, %4 = "onnx.Split"(%b, %n) : (tensor<9x2xf32>, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return %0, %2 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// Slice clamps starts/ends: [1:5] and [-5:1000:2] of a 30-long dim.
// CHECK-LABEL: func.func @slice_clamped(
// CHECK: "onnx.Slice"{{.*}} -> tensor<4x20x3xf32>
func.func @slice_clamped(%a: tensor<10x20x30xf32>) -> tensor<*xf32> {
  %starts = "onnx.Constant"() {value = dense<[1, -5]> : tensor<2xi64>} : () -> tensor<2xi64>
  %ends = "onnx.Constant"() {value = dense<[5, 1000]> : tensor<2xi64>} : () -> tensor<2xi64>
  %axes = "onnx.Constant"() {value = dense<[0, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %steps = "onnx.Constant"() {value = dense<[1, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = "onnx.Slice"(%a, %starts, %ends, %axes, %steps) : (tensor<10x20x30xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// A negative step walks backwards: [-1:-1000:-1] reverses all 10 elements.
// CHECK-LABEL: func.func @slice_negative_step(
// CHECK: "onnx.Slice"{{.*}} -> tensor<10xf32>
func.func @slice_negative_step(%a: tensor<10xf32>) -> tensor<*xf32> {
  %starts = "onnx.Constant"() {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %ends = "onnx.Constant"() {value = dense<[-1000]> : tensor<1xi64>} : () -> tensor<1xi64>
  %n = "onnx.NoValue"() : () -> none
  %steps = "onnx.Constant"() {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = "onnx.Slice"(%a, %starts, %ends, %n, %steps) : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, none, tensor<1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Slicing other axes leaves a symbolic batch alone.
// CHECK-LABEL: func.func @slice_symbolic_batch(
// CHECK: "onnx.Slice"{{.*}} -> tensor<?x4xf32>
func.func @slice_symbolic_batch(%a: tensor<?x8xf32> {onnx.dim_params = ["batch", ""]}) -> tensor<*xf32> {
  %starts = "onnx.Constant"() {value = dense<[2]> : tensor<1xi64>} : () -> tensor<1xi64>
  %ends = "onnx.Constant"() {value = dense<[6]> : tensor<1xi64>} : () -> tensor<1xi64>
  %axes = "onnx.Constant"() {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.Slice"(%a, %starts, %ends, %axes, %n) : (tensor<?x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Gather puts the indices' shape in place of the axis; GatherElements has
/// the indices' shape; GatherND appends the data dims past the index tuple.
// CHECK-LABEL: func.func @gathers(
// CHECK: "onnx.Gather"{{.*}} -> tensor<5x2x3x7xf32>
// CHECK: "onnx.Gather"{{.*}} -> tensor<6x7xf32>
// CHECK: "onnx.GatherElements"{{.*}} -> tensor<5x1x7xf32>
// CHECK: "onnx.GatherND"{{.*}} -> tensor<4x7xf32>
// CHECK: "onnx.GatherND"{{.*}} -> tensor<5x7xf32>
func.func @gathers(%d: tensor<5x6x7xf32>, %i: tensor<2x3xi64>, %s: tensor<i64>, %e: tensor<5x1x7xi64>, %nd: tensor<4x2xi64>, %bnd: tensor<5x1xi64>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %0 = "onnx.Gather"(%d, %i) {axis = 1 : i64} : (tensor<5x6x7xf32>, tensor<2x3xi64>) -> tensor<*xf32>
  %1 = "onnx.Gather"(%d, %s) : (tensor<5x6x7xf32>, tensor<i64>) -> tensor<*xf32>
  %2 = "onnx.GatherElements"(%d, %e) {axis = 1 : i64} : (tensor<5x6x7xf32>, tensor<5x1x7xi64>) -> tensor<*xf32>
  %3 = "onnx.GatherND"(%d, %nd) : (tensor<5x6x7xf32>, tensor<4x2xi64>) -> tensor<*xf32>
  %4 = "onnx.GatherND"(%d, %bnd) {batch_dims = 1 : i64} : (tensor<5x6x7xf32>, tensor<5x1xi64>) -> tensor<*xf32>
  return %0, %1, %2, %3, %4 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

/// Expand broadcasts with the constant shape; Tile multiplies by repeats.
// CHECK-LABEL: func.func @expand_tile(
// CHECK: "onnx.Expand"{{.*}} -> tensor<2x3x6xf32>
// CHECK: "onnx.Tile"{{.*}} -> tensor<9x2xf32>
func.func @expand_tile(%a: tensor<3x1xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %s = "onnx.Constant"() {value = dense<[2, 1, 6]> : tensor<3xi64>} : () -> tensor<3xi64>
  %0 = "onnx.Expand"(%a, %s) : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<*xf32>
  %r = "onnx.Constant"() {value = dense<[3, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %1 = "onnx.Tile"(%a, %r) : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// Pad adds begin and end pads; a dim with no padding keeps its symbol.
// CHECK-LABEL: func.func @pad(
// CHECK: "onnx.Pad"{{.*}} -> tensor<?x6xf32>
func.func @pad(%a: tensor<?x3xf32> {onnx.dim_params = ["batch", ""]}) -> tensor<*xf32> {
  %p = "onnx.Constant"() {value = dense<[0, 1, 0, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.Pad"(%a, %p, %n) {mode = "reflect"} : (tensor<?x3xf32>, tensor<4xi64>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Shape gives a 1-D tensor of end - start; Size a scalar.
// CHECK-LABEL: func.func @shape_size(
// CHECK: "onnx.Shape"{{.*}} -> tensor<4xi64>
// CHECK: "onnx.Shape"{{.*}} -> tensor<2xi64>
// CHECK: "onnx.Size"{{.*}} -> tensor<i64>
func.func @shape_size(%a: tensor<?x3x4x5xf32>) -> (tensor<*xi64>, tensor<*xi64>, tensor<*xi64>) {
  %0 = "onnx.Shape"(%a) : (tensor<?x3x4x5xf32>) -> tensor<*xi64>
  %1 = "onnx.Shape"(%a) {start = 1 : i64, end = -1 : i64} : (tensor<?x3x4x5xf32>) -> tensor<*xi64>
  %2 = "onnx.Size"(%a) : (tensor<?x3x4x5xf32>) -> tensor<*xi64>
  return %0, %1, %2 : tensor<*xi64>, tensor<*xi64>, tensor<*xi64>
}

// -----

/// Constants take their shape from the value attribute; ConstantOfShape from
/// its constant input.
// CHECK-LABEL: func.func @constants(
// CHECK: "onnx.Constant"{{.*}} -> tensor<3xi64>
// CHECK: "onnx.Constant"{{.*}} -> tensor<f32>
// CHECK: "onnx.ConstantOfShape"{{.*}} -> tensor<2x3xf32>
func.func @constants() -> (tensor<*xi64>, tensor<*xf32>, tensor<*xf32>) {
  %0 = "onnx.Constant"() {value_ints = array<i64: 2, 3, 4>} : () -> tensor<*xi64>
  %1 = "onnx.Constant"() {value_float = 1.5 : f32} : () -> tensor<*xf32>
  %s = "onnx.Constant"() {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %2 = "onnx.ConstantOfShape"(%s) {value = dense<0.0> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<*xf32>
  return %0, %1, %2 : tensor<*xi64>, tensor<*xf32>, tensor<*xf32>
}

// -----

/// Range with constant inputs: ceil((limit - start) / delta) elements.
// CHECK-LABEL: func.func @range(
// CHECK: "onnx.Range"{{.*}} -> tensor<4xi64>
// CHECK: "onnx.Range"{{.*}} -> tensor<4xf32>
// CHECK: "onnx.Range"{{.*}} -> tensor<?xi64>
func.func @range(%l: tensor<i64>) -> (tensor<*xi64>, tensor<*xf32>, tensor<*xi64>) {
  %a = "onnx.Constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %b = "onnx.Constant"() {value = dense<10> : tensor<i64>} : () -> tensor<i64>
  %c = "onnx.Constant"() {value = dense<3> : tensor<i64>} : () -> tensor<i64>
  %0 = "onnx.Range"(%a, %b, %c) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<*xi64>
  %fa = "onnx.Constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %fb = "onnx.Constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %fc = "onnx.Constant"() {value = dense<0.25> : tensor<f32>} : () -> tensor<f32>
  %1 = "onnx.Range"(%fa, %fb, %fc) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<*xf32>
  %2 = "onnx.Range"(%a, %l, %c) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<*xi64>
  return %0, %1, %2 : tensor<*xi64>, tensor<*xf32>, tensor<*xi64>
}

// -----

/// DepthToSpace and SpaceToDepth move blocksize^2 between C and H, W.
// CHECK-LABEL: func.func @depth_space(
// CHECK: "onnx.DepthToSpace"{{.*}} -> tensor<1x2x4x6xf32>
// CHECK: "onnx.SpaceToDepth"{{.*}} -> tensor<1x8x2x3xf32>
func.func @depth_space(%a: tensor<1x8x2x3xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0 = "onnx.DepthToSpace"(%a) {blocksize = 2 : i64, mode = "CRD"} : (tensor<1x8x2x3xf32>) -> tensor<*xf32>
  %1 = "onnx.SpaceToDepth"(%0) {blocksize = 2 : i64} : (tensor<*xf32>) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// Data-dependent sizes: Compress, NonZero and Unique give ranks with
/// unknown dims where the count depends on the values.
// CHECK-LABEL: func.func @data_dependent(
// CHECK: "onnx.Compress"{{.*}} -> tensor<3x?xf32>
// CHECK: "onnx.Compress"{{.*}} -> tensor<?xf32>
// CHECK: "onnx.NonZero"{{.*}} -> tensor<2x?xi64>
// CHECK: "onnx.Unique"{{.*}} -> (tensor<?xf32>, tensor<?xi64>, tensor<12xi64>, tensor<?xi64>)
func.func @data_dependent(%a: tensor<3x4xf32>, %c: tensor<4xi1>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xi64>, tensor<*xf32>) {
  %0 = "onnx.Compress"(%a, %c) {axis = 1 : i64} : (tensor<3x4xf32>, tensor<4xi1>) -> tensor<*xf32>
  %1 = "onnx.Compress"(%a, %c) : (tensor<3x4xf32>, tensor<4xi1>) -> tensor<*xf32>
  %2 = "onnx.NonZero"(%a) : (tensor<3x4xf32>) -> tensor<*xi64>
  %3, %4, %5, %6 = "onnx.Unique"(%a) : (tensor<3x4xf32>) -> (tensor<*xf32>, tensor<*xi64>, tensor<*xi64>, tensor<*xi64>)
  return %0, %1, %2, %3 : tensor<*xf32>, tensor<*xf32>, tensor<*xi64>, tensor<*xf32>
}

// -----

/// OneHot inserts the constant depth at axis.
// CHECK-LABEL: func.func @one_hot(
// CHECK: "onnx.OneHot"{{.*}} -> tensor<2x3x10xf32>
// CHECK: "onnx.OneHot"{{.*}} -> tensor<10x2x3xf32>
func.func @one_hot(%i: tensor<2x3xi64>, %v: tensor<2xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %d = "onnx.Constant"() {value = dense<10> : tensor<i64>} : () -> tensor<i64>
  %0 = "onnx.OneHot"(%i, %d, %v) : (tensor<2x3xi64>, tensor<i64>, tensor<2xf32>) -> tensor<*xf32>
  %1 = "onnx.OneHot"(%i, %d, %v) {axis = 0 : i64} : (tensor<2x3xi64>, tensor<i64>, tensor<2xf32>) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// TopK's values and indices have K along the axis.
// CHECK-LABEL: func.func @top_k(
// CHECK: %[[V:.*]], %[[I:.*]] = "onnx.TopK"{{.*}} -> (tensor<?x4xf32>, tensor<?x4xi64>)
// CHECK: return %[[V]], %[[I]]
func.func @top_k(%a: tensor<?x10xf32> {onnx.dim_params = ["batch", ""]}) -> (tensor<*xf32>, tensor<*xi64>) {
  %k = "onnx.Constant"() {value = dense<4> : tensor<1xi64>} : () -> tensor<1xi64>
  %0, %1 = "onnx.TopK"(%a, %k) : (tensor<?x10xf32>, tensor<1xi64>) -> (tensor<*xf32>, tensor<*xi64>)
  return %0, %1 : tensor<*xf32>, tensor<*xi64>
}

// -----

/// Ops whose output has the shape of their first input.
// CHECK-LABEL: func.func @same_shape_ops(
// CHECK: "onnx.EyeLike"{{.*}} -> tensor<4x4xf32>
// CHECK: "onnx.Trilu"{{.*}} -> tensor<4x4xf32>
// CHECK: "onnx.ScatterElements"{{.*}} -> tensor<4x4xf32>
// CHECK: "onnx.ScatterND"{{.*}} -> tensor<4x4xf32>
// CHECK: "onnx.ReverseSequence"{{.*}} -> tensor<4x4xf32>
// CHECK: "onnx.CumSum"{{.*}} -> tensor<4x4xf32>
func.func @same_shape_ops(%a: tensor<4x4xf32>, %i: tensor<1x4xi64>, %u: tensor<1x4xf32>, %ni: tensor<2x1xi64>, %nu: tensor<2x4xf32>, %lens: tensor<4xi64>, %ax: tensor<i64>) -> tensor<*xf32> {
  %0 = "onnx.EyeLike"(%a) : (tensor<4x4xf32>) -> tensor<*xf32>
  %n = "onnx.NoValue"() : () -> none
  %1 = "onnx.Trilu"(%0, %n) : (tensor<*xf32>, none) -> tensor<*xf32>
  %2 = "onnx.ScatterElements"(%1, %i, %u) : (tensor<*xf32>, tensor<1x4xi64>, tensor<1x4xf32>) -> tensor<*xf32>
  %3 = "onnx.ScatterND"(%2, %ni, %nu) : (tensor<*xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<*xf32>
  %4 = "onnx.ReverseSequence"(%3, %lens) : (tensor<*xf32>, tensor<4xi64>) -> tensor<*xf32>
  %5 = "onnx.CumSum"(%4, %ax) : (tensor<*xf32>, tensor<i64>) -> tensor<*xf32>
  return %5 : tensor<*xf32>
}

// -----

/// Det drops the two matrix dims.
// CHECK-LABEL: func.func @det(
// CHECK: "onnx.Det"{{.*}} -> tensor<5xf32>
func.func @det(%a: tensor<5x3x3xf32>) -> tensor<*xf32> {
  %0 = "onnx.Det"(%a) : (tensor<5x3x3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Unsqueeze's axes are 1-D in the spec; the ONNX backend tests also pass a
/// scalar (one axis), which runtimes accept.
// CHECK-LABEL: func.func @unsqueeze_scalar_axes
func.func @unsqueeze_scalar_axes(%a: tensor<3xf32>) -> tensor<*xf32> {
  %axes = "onnx.Constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  // CHECK: "onnx.Unsqueeze"{{.*}} -> tensor<1x3xf32>
  %0 = "onnx.Unsqueeze"(%a, %axes) : (tensor<3xf32>, tensor<i64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// The Shape of a tensor with static dims is known, so a Reshape to it is
/// static (the form older Softmax opsets are imported in).
// CHECK-LABEL: func.func @reshape_to_shape_of_static
func.func @reshape_to_shape_of_static(%a: tensor<2x12xf32>, %b: tensor<2x3x4xf32>) -> tensor<*xf32> {
  %s = "onnx.Shape"(%b) : (tensor<2x3x4xf32>) -> tensor<*xi64>
  // CHECK: "onnx.Reshape"{{.*}} -> tensor<2x3x4xf32>
  %0 = "onnx.Reshape"(%a, %s) : (tensor<2x12xf32>, tensor<*xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Shape arithmetic is evaluated at compile time: Size(Shape(x)) - 1 gives
/// the length of a ConstantOfShape, concatenated with a slice of the shape
/// (as LayerNormalization's function body computes its reduced shape).
// CHECK-LABEL: func.func @shape_arithmetic
func.func @shape_arithmetic(%x: tensor<3x4x5xf32>) -> tensor<*xi64> {
  %shape = "onnx.Shape"(%x) : (tensor<3x4x5xf32>) -> tensor<*xi64>
  %rank = "onnx.Size"(%shape) : (tensor<*xi64>) -> tensor<*xi64>
  %one = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %zero = "onnx.Constant"() {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %n = "onnx.Sub"(%rank, %one) : (tensor<*xi64>, tensor<1xi64>) -> tensor<*xi64>
  %ones = "onnx.ConstantOfShape"(%n) {value = dense<1> : tensor<1xi64>} : (tensor<*xi64>) -> tensor<*xi64>
  // CHECK: "onnx.ConstantOfShape"{{.*}} -> tensor<2xi64>
  %head = "onnx.Slice"(%shape, %zero, %one, %zero, %one) : (tensor<*xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<*xi64>
  %reduced = "onnx.Concat"(%head, %ones) {axis = 0 : i64} : (tensor<*xi64>, tensor<*xi64>) -> tensor<*xi64>
  // CHECK: "onnx.Concat"{{.*}} -> tensor<3xi64>
  %y = "onnx.ConstantOfShape"(%reduced) {value = dense<7> : tensor<1xi64>} : (tensor<*xi64>) -> tensor<*xi64>
  // CHECK: "onnx.ConstantOfShape"{{.*}} -> tensor<3x1x1xi64>
  return %y : tensor<*xi64>
}
