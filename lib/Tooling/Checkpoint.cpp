//===- Checkpoint.cpp - .npz checkpoints through libzip -------------------===//
//
// Each variable goes through the runtime's .npy encoder and decoder in
// memory, straight into and out of the archive (no temporary directory: a
// missing or full TMPDIR cannot lose a training's weights), so the
// checkpoint's entries are exactly the .npy files gplace-run writes for
// --output.
//
//===----------------------------------------------------------------------===//

#include "gplace/Tooling/Checkpoint.h"
#include "gplace/Support/Shape.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <zip.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

using namespace gplace;
namespace rt = gplace::runtime;
namespace fs = std::filesystem;

namespace {

/// The modification time of every entry: 1980-01-02 00:00:00 UTC, a day
/// after the zip epoch, so that it stays in DOS time's range (which zip
/// stores in local time) in every time zone.
constexpr time_t kEntryTime = 315619200;

/// fsyncs `path` (a file or a directory).
bool syncPath(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0)
    return false;
  bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

} // namespace

rt::Status tooling::saveCheckpoint(const std::string &path,
                                   const rt::Executor &executor) {
  auto fail = [&](const std::string &why) {
    return rt::Status::invalidArgument("cannot save checkpoint '" + path +
                                       "': " + why);
  };
  // TensorFlow's Saver: "No variables to save" (libzip would write no
  // archive at all).
  if (executor.numVariables() == 0)
    return fail("the graph has no variables to save");
  // Renamed over at the end: a device or pipe would be replaced.
  std::error_code statusError;
  fs::file_status status = fs::status(path, statusError);
  if (fs::exists(status) && !fs::is_regular_file(status))
    return fail("not a regular file");
  fs::path target(path);
  fs::path directory = target.has_parent_path() ? target.parent_path() : ".";
  std::string partial =
      (directory / ("." + target.filename().string() + ".tmp" +
                    std::to_string(::getpid())))
          .string();
  int error = 0;
  zip_t *archive = zip_open(partial.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  if (!archive) {
    zip_error_t zipError;
    zip_error_init_with_code(&zipError, error);
    std::string why = zip_error_strerror(&zipError);
    zip_error_fini(&zipError);
    return fail(why);
  }
  // Mirrored variables (one copy per replica, one name) are saved once;
  // their copies must be equal. Each entry is its .npy header and the
  // variable's bytes where they lie (two fragments of one zip source, not
  // a copy: a 512 MiB variable took three more copies and 4x dd's time):
  // the executor's own buffer in host memory, or a copy read from a GPU;
  // alive until zip_close writes them.
  struct Entry {
    std::string header;
    rt::HostTensor copy; ///< From a GPU; else empty.
    const uint8_t *data = nullptr;
    size_t size = 0;
  };
  std::map<std::string, Entry> saved;
  for (size_t i = 0; i < executor.numVariables(); ++i) {
    rt::TensorRef view = executor.hostVariable(i);
    rt::HostTensor copy;
    if (!view.data) {
      rt::StatusOr<rt::HostTensor> value = executor.readVariable(i);
      if (!value) {
        zip_discard(archive);
        return value.status();
      }
      copy = std::move(*value);
    }
    const uint8_t *data =
        view.data ? static_cast<const uint8_t *>(view.data) : copy.data.data();
    size_t size = static_cast<size_t>(view.type->bytes());
    auto [entry, first] = saved.try_emplace(executor.variableName(i));
    if (!first) {
      if (entry->second.size == size &&
          (size == 0 || std::memcmp(entry->second.data, data, size) == 0))
        continue;
      zip_discard(archive);
      return fail("the copies of mirrored variable '" +
                  executor.variableName(i) + "' differ");
    }
    // An entry name that np.load or unzip would take outside the folder it
    // extracts to (an ONNX initializer named '../../x') is refused.
    {
      llvm::StringRef name = executor.variableName(i);
      bool unsafe = name.empty() || name.starts_with("/");
      llvm::SmallVector<llvm::StringRef> parts;
      name.split(parts, '/');
      for (llvm::StringRef part : parts)
        unsafe |= part.empty() || part == "." || part == "..";
      if (unsafe) {
        zip_discard(archive);
        return fail("variable name '" + name.str() +
                    "' cannot name a checkpoint entry (an empty, '.' or '..' "
                    "path component, or a leading '/'); rename the variable");
      }
    }
    rt::StatusOr<std::string> header = rt::encodeNpyHeader(*view.type);
    if (!header) {
      zip_discard(archive);
      return fail("variable '" + executor.variableName(i) +
                  "': " + header.status().message());
    }
    Entry &saving = entry->second;
    saving.header = std::move(*header);
    saving.copy = std::move(copy);
    saving.data = view.data ? data : saving.copy.data.data();
    saving.size = size;
    // libzip only reads the fragments (the source is not written to).
    zip_buffer_fragment_t fragments[2] = {
        {reinterpret_cast<zip_uint8_t *>(saving.header.data()),
         saving.header.size()},
        {const_cast<uint8_t *>(saving.data), saving.size}};
    zip_source_t *source = zip_source_buffer_fragment(archive, fragments, 2, 0);
    zip_int64_t index =
        source ? zip_file_add(archive,
                              (executor.variableName(i) + ".npy").c_str(),
                              source, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8)
               : -1;
    if (index < 0) {
      if (source)
        zip_source_free(source);
      std::string why = zip_strerror(archive);
      zip_discard(archive);
      return fail(why);
    }
    zip_set_file_compression(archive, static_cast<zip_uint64_t>(index),
                             ZIP_CM_STORE, 0);
    // A fixed time (about the zip epoch, which NumPy's savez writes), not
    // the clock's: the same weights give the same bytes.
    zip_file_set_mtime(archive, static_cast<zip_uint64_t>(index),
                       kEntryTime, 0);
  }
  if (zip_close(archive) != 0) {
    std::string why = zip_strerror(archive);
    zip_discard(archive);
    std::error_code ignored;
    fs::remove(partial, ignored);
    return fail(why);
  }
  if (!syncPath(partial)) {
    std::error_code ignored;
    fs::remove(partial, ignored);
    return fail(std::string("fsync: ") + std::strerror(errno));
  }
  std::error_code renameError;
  fs::rename(partial, target, renameError);
  if (renameError) {
    std::error_code ignored;
    fs::remove(partial, ignored);
    return fail(renameError.message());
  }
  syncPath(directory.string());
  return rt::Status::ok();
}

rt::Status tooling::restoreCheckpoint(const std::string &path,
                                      rt::Executor &executor) {
  auto fail = [&](const std::string &why) {
    return rt::Status::invalidArgument("cannot restore checkpoint '" + path +
                                       "': " + why);
  };
  std::error_code fsError;
  if (!fs::is_regular_file(path, fsError))
    return fail(fs::exists(path, fsError) ? "not a regular file"
                                          : "no such file");
  int error = 0;
  zip_t *archive = zip_open(path.c_str(), ZIP_RDONLY, &error);
  if (!archive)
    return fail("not an .npz checkpoint (a zip archive of .npy files)");
  // An entry may appear twice: the last one counts, as NumPy's np.load
  // reads an .npz (Python's zipfile keeps the last of a name).
  std::map<std::string, zip_uint64_t> lastEntry;
  zip_int64_t numEntries = zip_get_num_entries(archive, 0);
  for (zip_int64_t e = 0; e < numEntries; ++e)
    if (const char *entryName = zip_get_name(archive, e, ZIP_FL_ENC_GUESS))
      lastEntry[entryName] = static_cast<zip_uint64_t>(e);
  for (size_t i = 0; i < executor.numVariables(); ++i) {
    const std::string &name = executor.variableName(i);
    auto found = lastEntry.find(name + ".npy");
    if (found == lastEntry.end()) {
      zip_discard(archive);
      return rt::Status::invalidArgument("Key " + name +
                                         " not found in checkpoint " + path);
    }
    zip_uint64_t index = found->second;
    // The entry's size, checked against the variable's before inflating
    // it: a small archive must not inflate to gigabytes.
    const rt::TensorType &type = executor.variableType(i);
    std::optional<int64_t> dataBytes =
        checkedTensorBytes(type.shape, type.elementType);
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_stat_index(archive, index, 0, &stat) != 0 ||
        !(stat.valid & ZIP_STAT_SIZE)) {
      zip_discard(archive);
      return fail("cannot read entry " + name + ".npy");
    }
    // A .npy header is at most a few KiB for any shape gplace has; 1 MiB
    // leaves room for NumPy's longest.
    constexpr zip_uint64_t kHeaderRoom = zip_uint64_t(1) << 20;
    if (!dataBytes ||
        stat.size > static_cast<zip_uint64_t>(*dataBytes) + kHeaderRoom) {
      zip_discard(archive);
      return fail("entry " + name + ".npy holds " +
                  std::to_string(stat.size) + " bytes, more than variable '" +
                  name + "' (" + type.str() + ") can take");
    }
    zip_file_t *entry = zip_fopen_index(archive, index, 0);
    if (!entry) {
      zip_discard(archive);
      return fail("cannot read entry " + name + ".npy");
    }
    std::string bytes(static_cast<size_t>(stat.size), '\0');
    zip_int64_t got = bytes.empty() ? 0 : zip_fread(entry, bytes.data(), bytes.size());
    // Reading past the end checks the entry's CRC-32.
    char extra;
    zip_int64_t more = zip_fread(entry, &extra, 1);
    std::string readError = got < 0 || more < 0 ? zip_file_strerror(entry) : "";
    zip_fclose(entry);
    if (got != static_cast<zip_int64_t>(bytes.size()) || more != 0) {
      zip_discard(archive);
      return fail("entry " + name + ".npy: " +
                  (readError.empty() ? std::string("its size is not as stated")
                                     : readError));
    }
    rt::StatusOr<rt::HostTensor> value = rt::decodeNpy(bytes);
    if (!value) {
      zip_discard(archive);
      return fail("entry " + name + ".npy: " + value.status().message());
    }
    if (value->type != executor.variableType(i)) {
      zip_discard(archive);
      return rt::Status::invalidArgument(
          "variable '" + name + "' is " + executor.variableType(i).str() +
          " in the graph but " + value->type.str() + " in checkpoint " + path);
    }
    if (rt::Status written = executor.writeVariable(i, *value); !written) {
      zip_discard(archive);
      return written;
    }
  }
  zip_discard(archive);
  return rt::Status::ok();
}

rt::StatusOr<tooling::VariableValues>
tooling::readVariables(const rt::Executor &executor,
                       const std::set<std::string> &names) {
  VariableValues values;
  for (size_t i = 0; i < executor.numVariables(); ++i) {
    if (values.count(executor.variableName(i)) ||
        !names.count(executor.variableName(i)))
      continue;
    rt::StatusOr<rt::HostTensor> value = executor.readVariable(i);
    if (!value)
      return value.status();
    values.emplace(executor.variableName(i), std::move(*value));
  }
  return values;
}

rt::Status tooling::initializeVariables(const VariableValues &initial,
                                        rt::Executor &to) {
  for (size_t i = 0; i < to.numVariables(); ++i) {
    auto it = initial.find(to.variableName(i));
    if (it == initial.end())
      continue;
    if (it->second.type != to.variableType(i))
      return rt::Status::invalidArgument(
          "variable '" + to.variableName(i) + "' is " + it->second.type.str() +
          " in the initialisation function but " + to.variableType(i).str() +
          " in the entry");
    GPLACE_RETURN_IF_ERROR(to.writeVariable(i, it->second));
  }
  return rt::Status::ok();
}
