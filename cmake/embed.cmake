# Writes the bytes of the file IN into the C source OUT as
#   const unsigned char NAME[] = {..., 0x00};  const size_t NAME_len;
# (NUL-terminated; NAME_len excludes the NUL). Run at build time:
#   cmake -DIN=file -DOUT=file.c -DNAME=symbol -P cmake/embed.cmake
# A CMake script rather than `xxd -i`, so the build needs no other package.
foreach(v IN ITEMS IN OUT NAME)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "embed.cmake: -D${v}=... is required")
  endif()
endforeach()
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR n "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REPEAT "0x..," 16 line) # 16 bytes a line (CMake regexes have no {n})
string(REGEX REPLACE "(${line})" "\\1\n" body "${body}")
get_filename_component(src "${IN}" NAME)
file(WRITE "${OUT}.tmp"
  "/* Generated from ${src} by cmake/embed.cmake at build time: do not edit. */\n"
  "#include <stddef.h>\n\n"
  "extern const unsigned char ${NAME}[];\n"
  "extern const size_t ${NAME}_len;\n"
  "const unsigned char ${NAME}[] = {\n${body}0x00};\n"
  "const size_t ${NAME}_len = ${n};\n")
file(RENAME "${OUT}.tmp" "${OUT}")
