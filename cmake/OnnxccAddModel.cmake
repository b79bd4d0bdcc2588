# onnxcc_add_model: compile an ONNX model with onnxcc at build time into a
# static library.
#
#   onnxcc_add_model(TARGET classifier MODEL model.onnx
#                    [NAME n]                  # symbol prefix and file names (default: the
#                                              # model's file name without extension)
#                    [TARGET_KIND cpp|halide|cuda]  # code generator (default cpp)
#                    [HALIDE_AUTOSCHEDULER a]  # halide: Mullapudi2016, Li2018 or Adams2019
#                                              # instead of onnxcc's schedule
#                    [CUDA_ARCH sm_NN]         # cuda: onnxcc compile --cuda-arch
#                    [SHAPES in=1x3x224x224 ...]  # static dims (onnxcc compile --shape)
#                    [THREADS n]               # onnxcc compile --threads (links Threads::Threads)
#                    [TARGET_CPU cpu])         # onnxcc compile --target-cpu
#
# The build runs `onnxcc compile` into ${CMAKE_CURRENT_BINARY_DIR}/<TARGET>/
# (NAME.h, NAME.cpp, NAME.cpp.weights, onnxcc_*.h) whenever the model or the
# onnxcc executable changes, and compiles NAME.cpp into the STATIC library
# <TARGET>, whose PUBLIC include folder holds NAME.h. ONNXCC_EXECUTABLE must
# name the compiler (onnxccConfig.cmake sets it).
#
# TARGET_KIND halide writes NAME_generator.cpp next to NAME.cpp and builds it
# with Halide 14's own functions (find_package(Halide), add_halide_generator,
# add_halide_library, which runs the generator into the pipeline
# NAME_pipeline); NAME.cpp wraps that pipeline in the same C ABI as the cpp
# target. The pipeline's Halide target is what `onnxcc target-info` gives
# for TARGET_CPU (default native: the CPU features of the building machine),
# unless Halide_TARGET names one other than host.
#
# TARGET_KIND cuda compiles to PTX kernels embedded in NAME.cpp (codegen/cpp/
# ABI.md, "The CUDA target"); the library needs no CUDA toolkit or library to
# build: it loads the driver at run time and links only the dl library.
include_guard(GLOBAL)

function(onnxcc_add_model)
  cmake_parse_arguments(PARSE_ARGV 0 ARG ""
                        "TARGET;MODEL;NAME;TARGET_KIND;THREADS;TARGET_CPU;HALIDE_AUTOSCHEDULER;CUDA_ARCH"
                        "SHAPES")
  set(where "onnxcc_add_model(${ARG_TARGET})")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${where}: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_TARGET)
    message(FATAL_ERROR "onnxcc_add_model: TARGET is required")
  endif()
  if(NOT ARG_MODEL)
    message(FATAL_ERROR "${where}: MODEL is required")
  endif()
  if(TARGET "${ARG_TARGET}")
    message(FATAL_ERROR "${where}: a target named ${ARG_TARGET} exists already")
  endif()
  if(NOT ONNXCC_EXECUTABLE)
    get_property(ONNXCC_EXECUTABLE GLOBAL PROPERTY ONNXCC_EXECUTABLE)
  endif()
  if(NOT ONNXCC_EXECUTABLE)
    message(FATAL_ERROR "${where}: ONNXCC_EXECUTABLE is not set: use find_package(onnxcc)")
  endif()
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "CXX" IN_LIST languages)
    message(FATAL_ERROR "${where}: the generated code is C++: enable the CXX language "
                        "(project(... LANGUAGES C CXX))")
  endif()

  # The code generator: cpp or halide; the CUDA generator is planned
  # (DESIGN.md).
  if(NOT ARG_TARGET_KIND)
    set(ARG_TARGET_KIND cpp)
  endif()
  if(NOT ARG_TARGET_KIND MATCHES "^(cpp|halide|cuda)$")
    message(FATAL_ERROR "${where}: unknown TARGET_KIND '${ARG_TARGET_KIND}' (cpp, halide or "
                        "cuda)")
  endif()
  if(ARG_CUDA_ARCH AND NOT ARG_TARGET_KIND STREQUAL "cuda")
    message(FATAL_ERROR "${where}: CUDA_ARCH needs TARGET_KIND cuda")
  endif()
  if(ARG_CUDA_ARCH AND NOT ARG_CUDA_ARCH MATCHES "^sm_[0-9]+a?$")
    message(FATAL_ERROR "${where}: CUDA_ARCH '${ARG_CUDA_ARCH}' is not sm_NN (e.g. sm_80)")
  endif()
  if(ARG_HALIDE_AUTOSCHEDULER AND NOT ARG_TARGET_KIND STREQUAL "halide")
    message(FATAL_ERROR "${where}: HALIDE_AUTOSCHEDULER needs TARGET_KIND halide")
  endif()
  if(ARG_HALIDE_AUTOSCHEDULER AND NOT ARG_HALIDE_AUTOSCHEDULER MATCHES
     "^(Mullapudi2016|Li2018|Adams2019)$")
    message(FATAL_ERROR "${where}: unknown HALIDE_AUTOSCHEDULER '${ARG_HALIDE_AUTOSCHEDULER}' "
                        "(Mullapudi2016, Li2018 or Adams2019)")
  endif()

  get_filename_component(model "${ARG_MODEL}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${model}")
    message(FATAL_ERROR "${where}: model ${model} does not exist")
  endif()
  if(NOT DEFINED ARG_NAME)
    get_filename_component(ARG_NAME "${model}" NAME_WE)
  endif()
  if(NOT ARG_NAME MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "${where}: NAME '${ARG_NAME}' is not a C identifier (it prefixes "
                        "the model's symbols): give NAME")
  endif()

  set(options --target ${ARG_TARGET_KIND} --name "${ARG_NAME}")
  if(ARG_HALIDE_AUTOSCHEDULER)
    list(APPEND options "--halide-autoscheduler=${ARG_HALIDE_AUTOSCHEDULER}")
  endif()
  if(ARG_CUDA_ARCH)
    list(APPEND options "--cuda-arch=${ARG_CUDA_ARCH}")
  endif()
  foreach(shape IN LISTS ARG_SHAPES)
    if(NOT shape MATCHES "^[^=]+=[0-9]+(x[0-9]+)*$")
      message(FATAL_ERROR "${where}: SHAPES entry '${shape}' is not INPUT=D0xD1x...")
    endif()
    list(APPEND options "--shape=${shape}")
  endforeach()
  set(threads 1)
  if(DEFINED ARG_THREADS)
    if(NOT ARG_THREADS MATCHES "^[1-9][0-9]*$")
      message(FATAL_ERROR "${where}: THREADS '${ARG_THREADS}' is not a positive number")
    endif()
    set(threads ${ARG_THREADS})
    list(APPEND options "--threads=${threads}")
  endif()
  if(ARG_TARGET_CPU)
    list(APPEND options "--target-cpu=${ARG_TARGET_CPU}")
  endif()

  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${ARG_TARGET}")
  if(ARG_TARGET_KIND STREQUAL "halide")
    _onnxcc_add_halide_model()
    return()
  endif()
  set(header "${dir}/${ARG_NAME}.h")
  set(source "${dir}/${ARG_NAME}.cpp")
  set(weights "${dir}/${ARG_NAME}.cpp.weights")
  # Only the files every compile writes are OUTPUTs: onnxcc_kernels*.h and
  # onnxcc_threads.h come with some models only, and the compiler's
  # dependency scan of NAME.cpp finds them.
  add_custom_command(
    OUTPUT "${header}" "${source}" "${weights}" "${dir}/onnxcc_rt.h"
    COMMAND "${ONNXCC_EXECUTABLE}" compile "${model}" -o "${dir}" ${options}
    DEPENDS "${model}" "${ONNXCC_EXECUTABLE}"
    COMMENT "onnxcc: compiling ${ARG_MODEL} to ${ARG_TARGET}/${ARG_NAME}.cpp"
    VERBATIM)

  add_library(${ARG_TARGET} STATIC "${source}" "${header}")
  # NAME.cpp embeds the weights with `.incbin __FILE__ ".weights"`, which no
  # dependency scan sees.
  set_source_files_properties("${source}" PROPERTIES OBJECT_DEPENDS "${weights}")
  target_include_directories(${ARG_TARGET} PUBLIC "$<BUILD_INTERFACE:${dir}>")
  target_compile_features(${ARG_TARGET} PRIVATE cxx_std_17)
  if(threads GREATER 1)
    find_package(Threads REQUIRED)
    target_link_libraries(${ARG_TARGET} PUBLIC Threads::Threads)
  endif()
  if(ARG_TARGET_KIND STREQUAL "cuda")
    # onnxcc_cuda.h dlopens libcuda.so.1 (and uses std::call_once).
    find_package(Threads REQUIRED)
    target_link_libraries(${ARG_TARGET} PUBLIC ${CMAKE_DL_LIBS} Threads::Threads)
  endif()
  set_target_properties(${ARG_TARGET} PROPERTIES
    ONNXCC_MODEL "${model}" ONNXCC_NAME "${ARG_NAME}" ONNXCC_OUTPUT_DIR "${dir}")
endfunction()

# The halide part of onnxcc_add_model (its variables are the caller's).
macro(_onnxcc_add_halide_model)
  # Halide's package finds LLVM, whose configuration checks C sources.
  if(NOT "C" IN_LIST languages)
    message(FATAL_ERROR "${where}: TARGET_KIND halide needs the C language as well (Halide's "
                        "CMake package checks C sources): project(... LANGUAGES C CXX)")
  endif()
  find_package(Halide QUIET)
  if(NOT Halide_FOUND)
    message(FATAL_ERROR "${where}: TARGET_KIND halide needs Halide 14 "
                        "(apt-get install libhalide14-0-dev)")
  endif()
  # The Halide target from the CPU features onnxcc finds (onnxcc target-info),
  # for TARGET_CPU when given: Halide's own "host" may name instructions the
  # CPU lacks (Halide 14 takes a Zen 5 for a Sapphire Rapids and emits
  # AVX512-FP16). A Halide_TARGET other than host is the user's choice.
  if(Halide_TARGET AND NOT Halide_TARGET STREQUAL "host")
    set(halide_target "${Halide_TARGET}")
  else()
    set(cpu_option)
    if(ARG_TARGET_CPU)
      set(cpu_option "--target-cpu=${ARG_TARGET_CPU}")
    endif()
    execute_process(
      COMMAND "${ONNXCC_EXECUTABLE}" target-info ${cpu_option} --print=halide-target
      OUTPUT_VARIABLE halide_target ERROR_VARIABLE halide_target_error
      RESULT_VARIABLE halide_target_status OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT halide_target_status EQUAL 0 OR halide_target STREQUAL "")
      message(FATAL_ERROR "${where}: cannot find the Halide target: ${halide_target_error}")
    endif()
  endif()
  set(generator "${dir}/${ARG_NAME}_generator.cpp")
  add_custom_command(
    OUTPUT "${dir}/${ARG_NAME}.h" "${dir}/${ARG_NAME}.cpp" "${dir}/${ARG_NAME}.cpp.weights"
           "${generator}" "${dir}/CMakeLists.txt"
    COMMAND "${ONNXCC_EXECUTABLE}" compile "${model}" -o "${dir}" ${options}
    DEPENDS "${model}" "${ONNXCC_EXECUTABLE}"
    COMMENT "onnxcc: compiling ${ARG_MODEL} to the Halide generator ${ARG_TARGET}/${ARG_NAME}_generator.cpp"
    VERBATIM)
  add_halide_generator(${ARG_TARGET}_halide_generator SOURCES "${generator}")
  if(ARG_HALIDE_AUTOSCHEDULER)
    add_halide_library(${ARG_NAME}_pipeline FROM ${ARG_TARGET}_halide_generator
                       GENERATOR ${ARG_NAME} TARGETS "${halide_target}"
                       AUTOSCHEDULER Halide::${ARG_HALIDE_AUTOSCHEDULER})
  else()
    add_halide_library(${ARG_NAME}_pipeline FROM ${ARG_TARGET}_halide_generator
                       GENERATOR ${ARG_NAME} TARGETS "${halide_target}")
  endif()
  add_library(${ARG_TARGET} STATIC "${dir}/${ARG_NAME}.cpp" "${dir}/${ARG_NAME}.h")
  set_source_files_properties("${dir}/${ARG_NAME}.cpp" PROPERTIES
    OBJECT_DEPENDS "${dir}/${ARG_NAME}.cpp.weights")
  target_include_directories(${ARG_TARGET} PUBLIC "$<BUILD_INTERFACE:${dir}>")
  target_compile_features(${ARG_TARGET} PRIVATE cxx_std_17)
  target_link_libraries(${ARG_TARGET} PUBLIC ${ARG_NAME}_pipeline)
  set_target_properties(${ARG_TARGET} PROPERTIES
    ONNXCC_MODEL "${model}" ONNXCC_NAME "${ARG_NAME}" ONNXCC_OUTPUT_DIR "${dir}")
endmacro()
