// CViperKit is header-only (ViperKitABI.h); SwiftPM needs one source file.
#include "ViperKitABI.h"
