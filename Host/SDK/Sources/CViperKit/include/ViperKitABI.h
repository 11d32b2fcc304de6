/*
 * ViperKitABI.h: the binary contract between the Vivarium host and a plugin.
 *
 * A plugin is a shared object that exports one C symbol,
 * `vivarium_plugin_entry`, returning a pointer to a VKPluginDescriptor. The
 * host reads the fixed fields below (magic, ABI version, SDK version, compiler
 * identity) before it touches any Swift type from the plugin, and refuses the
 * file field by field when one does not match. Swift plugins never fill this
 * struct by hand: `PluginEntry.descriptor(for:)` in ViperKit does it.
 *
 * The layout of the fields up to and including `abi_version` never changes;
 * everything after it is described by `abi_version`.
 */
#ifndef VIPERKIT_ABI_H
#define VIPERKIT_ABI_H

#include <stdint.h>

/* "VIPR" in ASCII: the first field of every descriptor. */
#define VK_PLUGIN_MAGIC 0x56495052u

/* Layout version of VKPluginDescriptor. Raised when the struct changes. */
#define VK_PLUGIN_ABI_VERSION 1u

/* The SDK version a plugin is compiled against (see docs/writing-a-plugin.md, "Compatibility"). */
#define VIPERKIT_VERSION_MAJOR 3
#define VIPERKIT_VERSION_MINOR 1
#define VIPERKIT_VERSION_PATCH 0

/* The name of the symbol every plugin exports. */
#define VK_PLUGIN_ENTRY_SYMBOL "vivarium_plugin_entry"

typedef struct VKPluginDescriptor {
  uint32_t magic;             /* VK_PLUGIN_MAGIC */
  uint32_t abi_version;       /* VK_PLUGIN_ABI_VERSION the plugin was built with */
  uint32_t sdk_major;         /* VIPERKIT_VERSION_* the plugin was built with */
  uint32_t sdk_minor;
  uint32_t sdk_patch;
  uint32_t reserved;          /* zero */
  const char *swift_compiler; /* identity of the compiler that built the plugin */
  const char *plugin_name;    /* human-readable name, for reports */
  const void *plugin_type;    /* the Swift metatype of the plugin's ViperPlugin type */
} VKPluginDescriptor;

/* The signature of `vivarium_plugin_entry`. */
typedef const VKPluginDescriptor *(*VKPluginEntry)(void);

/*
 * The clang version string of the compiler that compiles this header. Swift
 * compiles it with the clang built into swiftc, so it identifies the toolchain.
 * `static inline` on purpose: it must be compiled into the plugin, not the SDK.
 */
static inline const char *vk_clang_version(void) { return __clang_version__; }

#endif
