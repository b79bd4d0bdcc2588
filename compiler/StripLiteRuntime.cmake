# Writes IN to OUT without `option optimize_for = LITE_RUNTIME;`.
file(READ "${IN}" content)
string(REPLACE "option optimize_for = LITE_RUNTIME;" "" content "${content}")
file(WRITE "${OUT}" "${content}")
