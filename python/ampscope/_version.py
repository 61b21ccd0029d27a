# The AmpScope release this recorder belongs to, written as run_start's
# ampscope_version; CMakeLists.txt's project version is the same (a test checks).
__version__ = "0.1.0"
