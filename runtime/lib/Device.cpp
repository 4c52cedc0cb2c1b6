//===- Device.cpp - Device memory, synchronisation and timing -------------===//
//
// The fkrt_device_* and fkrt_event_* entry points of runtime.h: thin calls
// into the driver loaded by Cuda.cpp, each in the device's primary context.
//
//===----------------------------------------------------------------------===//

#include "fkrt/runtime.h"

#include "Cuda.h"
#include "Status.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

using namespace fkrt;

struct fkrt_event_impl {
  const cu::Driver *driver = nullptr;
  int device = 0;
  cu::Context context = nullptr;
  cu::Event event = nullptr;
  bool recorded = false;
};

namespace {

/// The driver and a device's primary context, or a failure already recorded
/// with fkrt_last_error.
struct DeviceContext {
  const cu::Driver *driver = nullptr;
  cu::Context context = nullptr;
};

/// FKRT_ERROR_OUT_OF_MEMORY for the driver's out-of-memory error, so callers
/// can tell it apart; FKRT_ERROR_CUDA for the others.
fkrt_status cudaFail(const std::string &where, const cu::Driver &d,
                     const char *call, cu::Result r) {
  return fail(r == cu::kErrorOutOfMemory ? FKRT_ERROR_OUT_OF_MEMORY
                                         : FKRT_ERROR_CUDA,
              where + ": " + cu::describe(d, call, r));
}

fkrt_status checkOrdinal(const char *function, int device) {
  if (device < 0)
    return fail(FKRT_ERROR_INVALID_ARGUMENT,
                std::string(function) + ": device " + std::to_string(device) +
                    " is not a device ordinal");
  return FKRT_SUCCESS;
}

/// Loads the driver, initialises CUDA and gets the handle of `device`, for
/// the calls that only ask about a device (no context needed). Errors name
/// `function` and the device.
fkrt_status deviceHandle(const char *function, int device,
                         const cu::Driver *&d, cu::Device &handle) {
  std::string error;
  d = cu::driver(error);
  if (!d)
    return fail(FKRT_ERROR_NO_DRIVER, std::string(function) + ": " + error);
  cu::Result r = d->init(0);
  if (r != cu::kSuccess)
    return cudaFail(function, *d, "cuInit", r);
  if ((r = d->deviceGet(&handle, device)) != cu::kSuccess)
    return cudaFail(std::string(function) + ": device " +
                        std::to_string(device),
                    *d, "cuDeviceGet", r);
  return FKRT_SUCCESS;
}

/// Loads the driver, initialises CUDA and retains the primary context of
/// `device`, once per device for the life of the process: releasing it
/// would destroy the context, and with it the caller's allocations, when no
/// module holds it.
fkrt_status deviceContext(const char *function, int device,
                          DeviceContext &out) {
  std::string error;
  const cu::Driver *d = cu::driver(error);
  if (!d)
    return fail(FKRT_ERROR_NO_DRIVER, std::string(function) + ": " + error);
  static std::mutex mutex;
  static std::map<int, cu::Context> contexts;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = contexts.find(device);
  if (found == contexts.end()) {
    const std::string where =
        std::string(function) + ": device " + std::to_string(device);
    cu::Result r = d->init(0);
    if (r != cu::kSuccess)
      return cudaFail(function, *d, "cuInit", r);
    cu::Device handle;
    if ((r = d->deviceGet(&handle, device)) != cu::kSuccess)
      return cudaFail(where, *d, "cuDeviceGet", r);
    cu::Context context;
    if ((r = d->devicePrimaryCtxRetain(&context, handle)) != cu::kSuccess)
      return cudaFail(where, *d, "cuDevicePrimaryCtxRetain", r);
    found = contexts.emplace(device, context).first;
  }
  out.driver = d;
  out.context = found->second;
  return FKRT_SUCCESS;
}

/// Runs `body(driver)` with `device`'s primary context current.
template <typename F>
fkrt_status inDevice(const char *function, int device, F body) {
  return guarded([&] {
    DeviceContext dc;
    fkrt_status status = deviceContext(function, device, dc);
    if (status != FKRT_SUCCESS)
      return status;
    cu::ContextScope scope(*dc.driver, dc.context);
    if (!scope.ok())
      return fail(FKRT_ERROR_CUDA, std::string(function) +
                                       ": cannot make the primary context "
                                       "of device " +
                                       std::to_string(device) + " current");
    return body(*dc.driver);
  });
}

cu::DevicePtr devicePtr(const void *p) {
  return static_cast<cu::DevicePtr>(reinterpret_cast<uintptr_t>(p));
}

fkrt_status checkCopy(const char *function, int device, const void *dst,
                      const void *src, size_t bytes) {
  if (checkOrdinal(function, device) != FKRT_SUCCESS)
    return FKRT_ERROR_INVALID_ARGUMENT;
  if (bytes && (!dst || !src))
    return fail(FKRT_ERROR_INVALID_ARGUMENT, std::string(function) + ": " +
                                                 (dst ? "src" : "dst") +
                                                 " is null");
  return FKRT_SUCCESS;
}

} // namespace

extern "C" {

fkrt_status fkrt_device_count(int *count) {
  return guarded([&]() -> fkrt_status {
    if (!count)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  "fkrt_device_count: count is null");
    *count = 0;
    std::string error;
    const cu::Driver *d = cu::driver(error);
    if (!d)
      return fail(FKRT_ERROR_NO_DRIVER, "fkrt_device_count: " + error);
    cu::Result r = d->init(0);
    if (r != cu::kSuccess)
      return cudaFail("fkrt_device_count", *d, "cuInit", r);
    if ((r = d->deviceGetCount(count)) != cu::kSuccess)
      return cudaFail("fkrt_device_count", *d, "cuDeviceGetCount", r);
    return FKRT_SUCCESS;
  });
}

fkrt_status fkrt_device_sm_count(int device, int *count) {
  return guarded([&]() -> fkrt_status {
    const char *function = "fkrt_device_sm_count";
    if (checkOrdinal(function, device) != FKRT_SUCCESS)
      return FKRT_ERROR_INVALID_ARGUMENT;
    if (!count)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  "fkrt_device_sm_count: count is null");
    *count = 0;
    const cu::Driver *d = nullptr;
    cu::Device handle;
    if (fkrt_status status = deviceHandle(function, device, d, handle))
      return status;
    const std::string where =
        std::string(function) + ": device " + std::to_string(device);
    cu::Result r = d->deviceGetAttribute(
        count, cu::kDeviceAttributeMultiprocessorCount, handle);
    if (r != cu::kSuccess)
      return cudaFail(where, *d, "cuDeviceGetAttribute", r);
    return FKRT_SUCCESS;
  });
}

fkrt_status fkrt_device_name(int device, char *name, size_t size) {
  return guarded([&]() -> fkrt_status {
    const char *function = "fkrt_device_name";
    if (checkOrdinal(function, device) != FKRT_SUCCESS)
      return FKRT_ERROR_INVALID_ARGUMENT;
    if (!name || !size)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  "fkrt_device_name: name is null or size is 0");
    name[0] = '\0';
    const cu::Driver *d = nullptr;
    cu::Device handle;
    if (fkrt_status status = deviceHandle(function, device, d, handle))
      return status;
    const std::string where =
        std::string(function) + ": device " + std::to_string(device);
    char buffer[256] = {};
    cu::Result r = d->deviceGetName(buffer, sizeof(buffer) - 1, handle);
    if (r != cu::kSuccess)
      return cudaFail(where, *d, "cuDeviceGetName", r);
    size_t n = std::min(std::strlen(buffer), size - 1);
    std::memcpy(name, buffer, n);
    name[n] = '\0';
    return FKRT_SUCCESS;
  });
}

fkrt_status fkrt_device_alloc(int device, size_t bytes, void **pointer) {
  return guarded([&]() -> fkrt_status {
    const char *function = "fkrt_device_alloc";
    if (!pointer)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  "fkrt_device_alloc: pointer is null");
    *pointer = nullptr;
    if (checkOrdinal(function, device) != FKRT_SUCCESS)
      return FKRT_ERROR_INVALID_ARGUMENT;
    return inDevice(function, device, [&](const cu::Driver &d) {
      cu::DevicePtr p = 0;
      // cuMemAlloc rejects 0 bytes; a minimal allocation keeps empty tensors
      // valid (fkrt_run wants non-null data) and pointers unique.
      cu::Result r = d.memAlloc(&p, bytes ? bytes : 1);
      if (r != cu::kSuccess)
        return cudaFail(std::string(function) + ": " + std::to_string(bytes) +
                            " bytes on device " + std::to_string(device),
                        d, "cuMemAlloc", r);
      *pointer = reinterpret_cast<void *>(static_cast<uintptr_t>(p));
      return FKRT_SUCCESS;
    });
  });
}

fkrt_status fkrt_device_free(int device, void *pointer) {
  return guarded([&]() -> fkrt_status {
    const char *function = "fkrt_device_free";
    if (checkOrdinal(function, device) != FKRT_SUCCESS)
      return FKRT_ERROR_INVALID_ARGUMENT;
    if (!pointer)
      return FKRT_SUCCESS;
    return inDevice(function, device, [&](const cu::Driver &d) {
      cu::Result r = d.memFree(devicePtr(pointer));
      return r == cu::kSuccess ? FKRT_SUCCESS
                               : cudaFail(function, d, "cuMemFree", r);
    });
  });
}

/// A checked copy of `bytes` from `src` to `dst` by `copy` (a driver call
/// named `call`), for the C API function `function`.
static fkrt_status
copyBytes(const char *function, const char *call, int device, void *dst,
          const void *src, size_t bytes,
          const std::function<cu::Result(const cu::Driver &)> &copy) {
  return guarded([&]() -> fkrt_status {
    if (checkCopy(function, device, dst, src, bytes) != FKRT_SUCCESS)
      return FKRT_ERROR_INVALID_ARGUMENT;
    return inDevice(function, device, [&](const cu::Driver &d) {
      if (!bytes)
        return FKRT_SUCCESS;
      cu::Result r = copy(d);
      return r == cu::kSuccess ? FKRT_SUCCESS : cudaFail(function, d, call, r);
    });
  });
}

fkrt_status fkrt_device_copy_to_device(int device, void *dst, const void *src,
                                       size_t bytes) {
  return copyBytes("fkrt_device_copy_to_device", "cuMemcpyHtoD", device, dst,
                   src, bytes, [&](const cu::Driver &d) {
                     return d.memcpyHtoD(devicePtr(dst), src, bytes);
                   });
}

fkrt_status fkrt_device_copy_to_host(int device, void *dst, const void *src,
                                     size_t bytes) {
  return copyBytes("fkrt_device_copy_to_host", "cuMemcpyDtoH", device, dst,
                   src, bytes, [&](const cu::Driver &d) {
                     return d.memcpyDtoH(dst, devicePtr(src), bytes);
                   });
}

fkrt_status fkrt_device_fill(int device, void *pointer, uint8_t value,
                             size_t bytes, void *stream) {
  return guarded([&]() -> fkrt_status {
    const char *function = "fkrt_device_fill";
    if (checkOrdinal(function, device) != FKRT_SUCCESS)
      return FKRT_ERROR_INVALID_ARGUMENT;
    if (bytes && !pointer)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  "fkrt_device_fill: pointer is null");
    return inDevice(function, device, [&](const cu::Driver &d) {
      if (!bytes)
        return FKRT_SUCCESS;
      cu::Result r = d.memsetD8Async(devicePtr(pointer), value, bytes,
                                     static_cast<cu::Stream>(stream));
      return r == cu::kSuccess ? FKRT_SUCCESS
                               : cudaFail(function, d, "cuMemsetD8Async", r);
    });
  });
}

fkrt_status fkrt_device_synchronize(int device) {
  return guarded([&]() -> fkrt_status {
    const char *function = "fkrt_device_synchronize";
    if (checkOrdinal(function, device) != FKRT_SUCCESS)
      return FKRT_ERROR_INVALID_ARGUMENT;
    return inDevice(function, device, [&](const cu::Driver &d) {
      cu::Result r = d.ctxSynchronize();
      return r == cu::kSuccess ? FKRT_SUCCESS
                               : cudaFail(function, d, "cuCtxSynchronize", r);
    });
  });
}

fkrt_status fkrt_event_create(int device, fkrt_event *event) {
  return guarded([&]() -> fkrt_status {
    const char *function = "fkrt_event_create";
    if (!event)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  "fkrt_event_create: event is null");
    *event = nullptr;
    if (checkOrdinal(function, device) != FKRT_SUCCESS)
      return FKRT_ERROR_INVALID_ARGUMENT;
    DeviceContext dc;
    fkrt_status status = deviceContext(function, device, dc);
    if (status != FKRT_SUCCESS)
      return status;
    return inDevice(function, device, [&](const cu::Driver &d) {
      auto created = std::make_unique<fkrt_event_impl>();
      created->driver = &d;
      created->device = device;
      created->context = dc.context;
      cu::Result r = d.eventCreate(&created->event, cu::kEventDefault);
      if (r != cu::kSuccess)
        return cudaFail(function, d, "cuEventCreate", r);
      *event = created.release();
      return FKRT_SUCCESS;
    });
  });
}

fkrt_status fkrt_event_record(fkrt_event event, void *stream) {
  return guarded([&]() -> fkrt_status {
    if (!event)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  "fkrt_event_record: event is null");
    cu::ContextScope scope(*event->driver, event->context);
    if (!scope.ok())
      return fail(FKRT_ERROR_CUDA, "fkrt_event_record: cannot make the "
                                   "event's context current");
    cu::Result r = event->driver->eventRecord(event->event,
                                              static_cast<cu::Stream>(stream));
    if (r != cu::kSuccess)
      return cudaFail("fkrt_event_record", *event->driver, "cuEventRecord", r);
    event->recorded = true;
    return FKRT_SUCCESS;
  });
}

fkrt_status fkrt_event_elapsed_ms(fkrt_event start, fkrt_event stop,
                                  float *milliseconds) {
  return guarded([&] {
    const char *function = "fkrt_event_elapsed_ms";
    if (!start || !stop || !milliseconds)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  std::string(function) + ": null argument");
    *milliseconds = 0;
    if (start->device != stop->device)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  std::string(function) + ": the events are of devices " +
                      std::to_string(start->device) + " and " +
                      std::to_string(stop->device));
    if (!start->recorded || !stop->recorded)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  std::string(function) + ": the " +
                      (start->recorded ? "stop" : "start") +
                      " event was never recorded");
    const cu::Driver &d = *stop->driver;
    cu::ContextScope scope(d, stop->context);
    if (!scope.ok())
      return fail(FKRT_ERROR_CUDA, std::string(function) +
                                       ": cannot make the events' context "
                                       "current");
    cu::Result r = d.eventSynchronize(stop->event);
    if (r != cu::kSuccess)
      return cudaFail(function, d, "cuEventSynchronize", r);
    if ((r = d.eventElapsedTime(milliseconds, start->event, stop->event)) !=
        cu::kSuccess)
      return cudaFail(function, d, "cuEventElapsedTime", r);
    return FKRT_SUCCESS;
  });
}

void fkrt_event_destroy(fkrt_event event) {
  if (!event)
    return;
  {
    cu::ContextScope scope(*event->driver, event->context);
    event->driver->eventDestroy(event->event);
  }
  delete event;
}

} // extern "C"
