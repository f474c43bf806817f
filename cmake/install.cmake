# `cmake --install` and `cpack -G DEB`: bin/foliolab, its run-time data under share/foliolab
# (found by the binary as ../share/foliolab beside it: cli/cli_util.h find_data_root), the man
# pages foliolab(1) and foliolab-SUBCOMMAND(1) and the bash completion, all generated from the
# subcommand table by the built binary (cli/docs.h).

install(TARGETS foliolab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# What the binary reads from its data folder at run time: kernel config fragments, patch series,
# image recipes and the guest agent's sources (images/), the workloads' sources, the shipped
# experiments and examples (known-issues, Slurm, GitLab CI), and the JSON Schemas of the YAML
# files for editors (schema/: `foliolab schema --out schema`, checked by a unit test).
set(FOLIOLAB_DATADIR ${CMAKE_INSTALL_DATADIR}/foliolab)
install(FILES scripts/packages.txt DESTINATION ${FOLIOLAB_DATADIR})
install(DIRECTORY kernel-config patches images workloads experiments examples schema
  DESTINATION ${FOLIOLAB_DATADIR} USE_SOURCE_PERMISSIONS)

# man/: foliolab.1 and a foliolab-SUBCOMMAND.1 per subcommand (their names come from the table,
# so the folder is the output; foliolab.1 stands for it).
set(FOLIOLAB_MAN_DIR ${CMAKE_BINARY_DIR}/man)
set(FOLIOLAB_MAN ${FOLIOLAB_MAN_DIR}/foliolab.1)
set(FOLIOLAB_COMPLETION ${CMAKE_BINARY_DIR}/foliolab.bash-completion)
add_custom_command(OUTPUT ${FOLIOLAB_MAN}
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${FOLIOLAB_MAN_DIR}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${FOLIOLAB_MAN_DIR}
  COMMAND $<TARGET_FILE:foliolab> --write-man ${FOLIOLAB_MAN_DIR}
  DEPENDS foliolab VERBATIM COMMENT "foliolab(1) and foliolab-*(1) from the subcommand table")
add_custom_command(OUTPUT ${FOLIOLAB_COMPLETION}
  COMMAND sh -c "exec \"$1\" --print-completion bash > \"$2\"" sh $<TARGET_FILE:foliolab>
    ${FOLIOLAB_COMPLETION}
  DEPENDS foliolab VERBATIM COMMENT "bash completion from the subcommand table")
add_custom_target(foliolab_docs ALL DEPENDS ${FOLIOLAB_MAN} ${FOLIOLAB_COMPLETION})
install(DIRECTORY ${FOLIOLAB_MAN_DIR}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${FOLIOLAB_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
  RENAME foliolab)

# The package's relations from the one package list (scripts/packages.txt): Depends = [run] (the
# main job at run time) plus the shared libraries dpkg-shlibdeps finds, Recommends = [recommends].
function(foliolab_packages section out)
  file(STRINGS ${CMAKE_SOURCE_DIR}/scripts/packages.txt lines)
  set(current "")
  set(found "")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "#.*" "" line "${line}")
    string(STRIP "${line}" line)
    if(line MATCHES "^\\[(.*)\\]$")
      set(current ${CMAKE_MATCH_1})
    elseif(line AND current STREQUAL section)
      string(REGEX REPLACE "[ \t].*" "" package "${line}")
      list(APPEND found ${package})
    endif()
  endforeach()
  list(JOIN found ", " joined)
  set(${out} "${joined}" PARENT_SCOPE)
endfunction()
foliolab_packages(run FOLIOLAB_DEB_DEPENDS)
foliolab_packages(recommends FOLIOLAB_DEB_RECOMMENDS)

set(CPACK_PACKAGE_NAME foliolab)
set(CPACK_PACKAGE_VENDOR foliolab)
set(CPACK_PACKAGE_CONTACT "foliolab maintainers <foliolab@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "build patched Linux kernels, boot them in QEMU, measure THP/mTHP page-fault effects")
set(CPACK_PACKAGE_INSTALL_DIRECTORY foliolab)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${FOLIOLAB_DEB_DEPENDS}")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "${FOLIOLAB_DEB_RECOMMENDS}")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The binary without its debug info (a RelWithDebInfo build is 180 MB with it).
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
include(CPack)
