// The bare dlopen loop the plugin-loading figures of Scripts/benchmark are
// ratios to: the least a host can do to learn what every plugin file of a
// directory is. It dlopens each .so file, looks up `vivarium_plugin_entry`,
// calls it, and casts the descriptor's plugin type to `any ViperPlugin.Type`.
// It links ViperKit (so the Swift runtime) but not Foundation, and checks
// nothing. Built by Scripts/lib/loading_scale.py with `swiftc -O`.
//   bare-loop DIR    prints how many plugins it found
import Glibc
import ViperKit

let directory = CommandLine.arguments[1]
guard let folder = opendir(directory) else {
  print("bare-loop: cannot open \(directory)")
  exit(2)
}
var names: [String] = []
while let entry = readdir(folder) {
  let name = withUnsafePointer(to: entry.pointee.d_name) {
    String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
  }
  if name.hasSuffix(".so") { names.append(name) }
}
closedir(folder)
var found = 0
for name in names.sorted() {
  guard let handle = dlopen(directory + "/" + name, RTLD_NOW | RTLD_LOCAL),
    let symbol = dlsym(handle, "vivarium_plugin_entry")
  else { continue }
  let entry = unsafeBitCast(symbol, to: (@convention(c) () -> UnsafeRawPointer?).self)
  // VKPluginDescriptor: six UInt32 fields, then the compiler, name and type pointers.
  guard let descriptor = entry(), let type = descriptor.load(fromByteOffset: 40, as: UnsafeRawPointer?.self) else {
    continue
  }
  if PluginEntry.pluginType(from: type) != nil { found += 1 }
}
print(found)
