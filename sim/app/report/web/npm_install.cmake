# Script mode (sim/app/report/CMakeLists.txt runs it at build time): installs the charting libraries
# the HTML report inlines into WORK with `npm ci`, exactly the versions of package-lock.json,
# then writes THIRD_PARTY_LICENSES.txt there from what was installed.
#   cmake -DNPM=... -DNODE=... -DSOURCE=sim/app/report/web -DWORK=<build>/sim/app/report/web -P npm_install.cmake
# --prefer-offline: npm's cache (~/.npm) serves every package it holds, so after the first
# install a build needs no network. --ignore-scripts: no package runs code at install time.
# --omit=optional: vega-tooltip lists a native bundler binary as optional; the page needs none.
foreach(name package.json package-lock.json)
  file(COPY_FILE "${SOURCE}/${name}" "${WORK}/${name}" ONLY_IF_DIFFERENT)
endforeach()
execute_process(
  COMMAND "${NPM}" ci --prefer-offline --ignore-scripts --omit=optional --no-audit --no-fund
          --loglevel=error
  WORKING_DIRECTORY "${WORK}"
  RESULT_VARIABLE npm_result
  OUTPUT_VARIABLE npm_output
  ERROR_VARIABLE npm_output)
if(NOT npm_result EQUAL 0)
  string(REGEX REPLACE "\n+$" "" npm_output "${npm_output}")
  message(FATAL_ERROR
    "sim/app/report/web: `npm ci` failed (exit ${npm_result}). The HTML report inlines Vega, "
    "Vega-Lite and vega-embed, which npm installs from the npm registry the first time and from "
    "its cache (~/.npm) after that; here neither had them. Build once with the registry "
    "reachable (or copy a filled ~/.npm cache). npm said:\n${npm_output}")
endif()
execute_process(
  COMMAND "${NODE}" "${SOURCE}/write-licenses.js" "${WORK}" "${WORK}/THIRD_PARTY_LICENSES.txt"
  RESULT_VARIABLE licenses_result)
if(NOT licenses_result EQUAL 0)
  message(FATAL_ERROR "sim/app/report/web: write-licenses.js failed (exit ${licenses_result})")
endif()
