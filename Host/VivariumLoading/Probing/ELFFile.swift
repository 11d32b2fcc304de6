import Foundation
import Glibc
import ViperKit

/// What a file looks like from its ELF headers, read without loading it and
/// without reading it whole: the ELF header, the section headers and the
/// dynamic symbol table, each bounded by ``tableLimit``.
///
/// Reading the headers first lets the host reject empty files, text files,
/// truncated files, libraries for another machine and libraries without the
/// plugin entry symbol with a precise reason, and without running any of
/// their code (dlopen runs a library's initializers).
struct ELFFile {
  /// Why a file is not a loadable shared object for this host.
  enum Problem: Error, Equatable {
    case empty
    case notELF(firstBytes: String)
    case unsupported(String)
    case notSharedObject(typeName: String)
    case truncated(expected: Int, actual: Int)
    case implausible(String)
    /// Its manifest section takes `bytes`, over ``manifestLimit``.
    case manifestTooLarge(bytes: Int)
  }

  /// Dynamic symbols the file defines and exports, or nil when it has no
  /// section headers to read them from (a stripped-to-the-bone file).
  let exportedSymbols: Set<String>?
  /// The libraries it names as needed (`DT_NEEDED`), in order.
  let needed: [String]
  /// The directories of its run path (`DT_RUNPATH`, else `DT_RPATH`), as
  /// written: `$ORIGIN` is not expanded.
  let runPath: [String]
  /// The bytes of its ``PluginManifest/sectionName``, when it has one: what the plugin
  /// offers, readable without running any of its code.
  let manifest: [UInt8]?
  /// How many bytes of the file were read: at most ``tableLimit`` beyond the
  /// ELF header and the section headers, whatever the file claims.
  let bytesRead: Int
  /// The file size in bytes.
  let size: Int

  private static let machineX86_64: UInt16 = 62
  private static let machineAArch64: UInt16 = 183

  /// The ELF machine number of the architecture this host was built for.
  static var hostMachine: UInt16 {
    #if arch(x86_64)
      machineX86_64
    #elseif arch(arm64)
      machineAArch64
    #else
      0
    #endif
  }

  /// The most bytes of section headers, dynamic symbols or their names read
  /// from one file: far beyond any real plugin, small enough that a hostile
  /// file cannot make the host read gigabytes.
  static let tableLimit = 64 << 20
  /// The most dynamic symbols read: libFoundation has 17,000.
  static let symbolLimit = 200_000
  /// The longest symbol or library name read; a longer one is passed over.
  static let nameLimit = 4096
  /// The most bytes of symbol names kept from one file.
  static let namesLimit = 16 << 20
  /// The most dynamic-section entries read: real libraries have dozens.
  static let entryLimit = 4096
  /// The largest manifest read: that of a plugin with the most modules
  /// (``PluginLimits``).
  static let manifestLimit = PluginLimits.contractBytes

  /// Reads and checks the headers of the file open at `fd`, `size` bytes
  /// long, reading only the headers and the dynamic symbol table.
  init(fd: Int32, size: Int) throws(Problem) {
    self.size = size
    guard size > 0 else { throw .empty }
    let header = ByteReader(FileRange.read(fd, at: 0, count: min(size, 64)))
    guard header.bytes.starts(with: [0x7F, 0x45, 0x4C, 0x46]) else {
      throw .notELF(firstBytes: ELFFile.printable(header.bytes.prefix(16)))
    }
    guard size >= 64 else { throw .truncated(expected: 64, actual: size) }
    guard header.u8(4) == 2 else { throw .unsupported("it is a 32-bit ELF file; the host is 64-bit") }
    guard header.u8(5) == 1 else { throw .unsupported("it is a big-endian ELF file; the host is little-endian") }
    let type = header.u16(16)
    let machine = header.u16(18)
    guard type == 3 else {
      let names: [UInt16: String] = [1: "a relocatable object (.o)", 2: "an executable", 4: "a core dump"]
      throw .notSharedObject(typeName: names[type] ?? "an ELF file of type \(type)")
    }
    guard machine == ELFFile.hostMachine else {
      throw .unsupported("it is built for ELF machine \(machine); this host needs machine \(ELFFile.hostMachine)")
    }
    let programHeaders = header.offset(32) + Int(header.u16(54)) * Int(header.u16(56))
    let sectionOffset = header.offset(40)
    let sectionSize = Int(header.u16(58))
    let sectionCount = Int(header.u16(60))
    let sectionEnd = sectionOffset + sectionSize * sectionCount
    let end = max(programHeaders, sectionEnd)
    guard end <= size else { throw .truncated(expected: end, actual: size) }
    guard sectionCount > 0, sectionSize >= 64 else {
      (exportedSymbols, needed, runPath, manifest, bytesRead) = (nil, [], [], nil, 64)
      return
    }
    guard sectionSize * sectionCount <= ELFFile.tableLimit else {
      throw .implausible("its section headers take \(sectionSize * sectionCount) bytes")
    }
    let table = ByteReader(FileRange.read(fd, at: sectionOffset, count: sectionSize * sectionCount))
    let sections = (0..<sectionCount).map { Section(table, at: $0 * sectionSize) }
    for section in sections where section.end > size {
      throw .truncated(expected: section.end, actual: size)
    }
    var budget = Budget(fd: fd, left: ELFFile.tableLimit + ELFFile.manifestLimit)
    exportedSymbols = try ELFFile.dynamicSymbols(&budget, sections)
    (needed, runPath) = try ELFFile.dynamicEntries(&budget, sections)
    manifest = try ELFFile.manifest(&budget, sections, names: Int(header.u16(62)))
    bytesRead = 64 + sectionSize * sectionCount + ELFFile.tableLimit - budget.left
  }

  /// What may still be read of one file, shared by all its tables.
  private struct Budget {
    let fd: Int32
    var left: Int

    /// The `section`'s bytes, or an error once the file has asked for more
    /// than the budget in all.
    mutating func read(_ section: Section, _ what: String) throws(Problem) -> ByteReader {
      guard section.size <= left else {
        throw .implausible("its \(what) and other tables take over \(ELFFile.tableLimit) bytes")
      }
      left -= section.size
      return ByteReader(FileRange.read(fd, at: section.offset, count: section.size))
    }
  }

  private struct Section {
    let name: Int
    let type: UInt32
    let offset: Int
    let size: Int
    let link: Int
    let entrySize: Int
    init(_ reader: ByteReader, at base: Int) {
      name = Int(reader.u32(base))
      type = reader.u32(base + 4)
      offset = reader.offset(base + 24)
      size = type == 8 ? 0 : reader.offset(base + 32)  // SHT_NOBITS occupies no file space
      link = Int(reader.u32(base + 40))
      entrySize = reader.offset(base + 56)
    }
    var end: Int { offset + size }
  }

  /// Names of defined global or weak symbols in `.dynsym`.
  /// Only the first `.dynsym` counts, as for the dynamic loader: a file
  /// listing many cannot make the host read each.
  private static func dynamicSymbols(_ budget: inout Budget, _ sections: [Section]) throws(Problem) -> Set<String> {
    var names: Set<String> = []
    if let table = sections.first(where: { $0.type == 11 }), table.entrySize >= 24, table.link < sections.count {
      let strings = sections[table.link]
      let symbols = try budget.read(table, "dynamic symbol table")
      let text = try budget.read(strings, "dynamic symbol names")
      let count = table.size / table.entrySize
      guard count <= symbolLimit else {
        throw .implausible("its dynamic symbol table lists \(count) symbols (at most \(symbolLimit) are read)")
      }
      var kept = 0
      for index in 1..<max(1, count) {
        let base = index * table.entrySize
        let binding = symbols.u8(base + 4) >> 4
        let sectionIndex = symbols.u16(base + 6)
        guard sectionIndex != 0, binding == 1 || binding == 2 else { continue }
        let nameOffset = Int(symbols.u32(base))
        if nameOffset < strings.size, let name = text.cString(at: nameOffset, limit: strings.size) {
          kept += name.utf8.count
          guard kept <= namesLimit else {
            throw .implausible("its dynamic symbols' names take over \(namesLimit) bytes")
          }
          names.insert(name)
        }
      }
    }
    return names
  }

  /// The bytes of the first section named ``PluginManifest/sectionName``, found
  /// through the section-name table (`e_shstrndx`, section `names`).
  private static func manifest(_ budget: inout Budget, _ sections: [Section], names: Int) throws(Problem)
    -> [UInt8]?
  {
    guard names > 0, names < sections.count, sections[names].type == 3 else { return nil }
    let table = sections[names]
    let text = try budget.read(table, "section names")
    let named = { (section: Section) in text.cString(at: section.name, limit: table.size) == PluginManifest.sectionName
    }
    guard let section = sections.first(where: named), section.type == 1 /* SHT_PROGBITS */ else { return nil }
    guard section.size <= manifestLimit else { throw .manifestTooLarge(bytes: section.size) }
    return try budget.read(section, "manifest").bytes
  }

  /// `DT_NEEDED` names and the run path, from the first `SHT_DYNAMIC` section.
  private static func dynamicEntries(_ budget: inout Budget, _ sections: [Section]) throws(Problem)
    -> (needed: [String], runPath: [String])
  {
    guard let table = sections.first(where: { $0.type == 6 }), table.link < sections.count else { return ([], []) }
    let strings = sections[table.link]
    let entries = try budget.read(table, "dynamic section")
    let text = try budget.read(strings, "dynamic section's names")
    var needed: [String] = []
    var runPath: [String]?
    var rpath: [String] = []
    for base in stride(from: 0, to: min(table.size - 15, entryLimit * 16), by: 16) {
      let tag = entries.u64(base)
      guard tag != 0 else { break }  // DT_NULL
      guard tag == 1 || tag == 15 || tag == 29,
        let value = text.cString(at: entries.offset(base + 8), limit: strings.size)
      else { continue }
      let paths = value.split(separator: ":").map(String.init)
      switch tag {
      case 1: needed.append(value)
      case 29: runPath = paths
      default: rpath = paths
      }
    }
    return (needed, runPath ?? rpath)
  }

  /// `bytes` as a string literal would show them: `hello\n`, `\x00`.
  private static func printable(_ bytes: ArraySlice<UInt8>) -> String {
    bytes.map { byte in
      switch byte {
      case UInt8(ascii: "\n"): "\\n"
      case UInt8(ascii: "\t"): "\\t"
      case UInt8(ascii: "\""), UInt8(ascii: "\\"): "\\" + String(UnicodeScalar(byte))
      case 0x20..<0x7F: String(UnicodeScalar(byte))
      default: "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
      }
    }.joined()
  }
}

/// Little-endian reads at byte offsets the caller has bounds-checked.
private struct ByteReader {
  let bytes: [UInt8]
  init(_ bytes: [UInt8]) { self.bytes = bytes }
  func u8(_ at: Int) -> UInt8 { at < bytes.count ? bytes[at] : 0 }
  func u16(_ at: Int) -> UInt16 { UInt16(u8(at)) | UInt16(u8(at + 1)) << 8 }
  func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
  func u64(_ at: Int) -> UInt64 { UInt64(u32(at)) | UInt64(u32(at + 4)) << 32 }
  /// A 64-bit file offset or size, clamped so that sums of a few cannot overflow.
  func offset(_ at: Int) -> Int { Int(min(u64(at), 1 << 40)) }
  /// The NUL-terminated string at `start`, ending before `limit`; nil when
  /// it does not end within ``ELFFile/nameLimit`` bytes.
  func cString(at start: Int, limit: Int) -> String? {
    let end = min(limit, bytes.count, start + ELFFile.nameLimit)
    guard start >= 0, start < end else { return nil }
    return bytes.withUnsafeBufferPointer { buffer in
      guard let nul = memchr(buffer.baseAddress! + start, 0, end - start) else { return nil }
      let length = UnsafeRawPointer(nul) - UnsafeRawPointer(buffer.baseAddress! + start)
      return String(decoding: UnsafeBufferPointer(start: buffer.baseAddress! + start, count: length), as: UTF8.self)
    }
  }
}

/// Reads byte ranges of an open file with `pread`, never more than asked.
private enum FileRange {
  /// Up to `count` bytes at `offset`; fewer at the end of the file or on an
  /// error, which the callers' bounds checks then report as truncation.
  static func read(_ fd: Int32, at offset: Int, count: Int) -> [UInt8] {
    guard count > 0 else { return [] }
    var bytes = [UInt8](repeating: 0, count: count)
    var filled = 0
    while filled < count {
      let got = bytes.withUnsafeMutableBytes {
        pread(fd, $0.baseAddress! + filled, count - filled, off_t(offset + filled))
      }
      guard got > 0 else { break }
      filled += got
    }
    return Array(bytes.prefix(filled))
  }
}
