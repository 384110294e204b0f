# Runs a command and writes its standard output to a file, atomically: the build uses it
# to write the man page and the completion scripts with the zlbench it has just built.
#   cmake -DEXE=<program> -DARGS="<arg> ..." -DOUT=<file> -P scripts/capture.cmake
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND ${EXE} ${args} OUTPUT_FILE ${OUT}.tmp RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE ${OUT}.tmp)
  message(FATAL_ERROR "'${EXE} ${ARGS}' exited ${rc}")
endif()
file(RENAME ${OUT}.tmp ${OUT})
