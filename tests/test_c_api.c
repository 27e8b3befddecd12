/*
 * The C API from a C99 program: every status has a name and a description, the version agrees with
 * the macros, CUDA errors map as documented, and invalid arguments give the documented status without
 * touching the GPU (this test runs where there is no GPU: a call that reached CUDA would report
 * SK_ERROR_NO_DEVICE instead of the status checked here), and where there is none, the calls that do
 * reach CUDA report SK_ERROR_NO_DEVICE.
 */
#include <stdio.h>
#include <string.h>

#include "samplekit/csr_chunk_groups.h"
#include "samplekit/csr_chunk_order.h"
#include "samplekit/samplekit.h"
#include "sk_test.h"

#define CASE(name, value, text) {name, value, #name, text},
static const struct {
  sk_status status;
  int value;
  const char *name;
  const char *text;
} kStatuses[] = {SK_STATUS_LIST(CASE)};
#undef CASE

static void test_statuses(void) {
  size_t i, j;
  for (i = 0; i < sizeof kStatuses / sizeof kStatuses[0]; ++i) {
    const int v = kStatuses[i].value;
    sk_test_context("status %s", kStatuses[i].name);
    SK_CHECK((int)kStatuses[i].status == v, "enum value %d differs from the list's %d", (int)kStatuses[i].status, v);
    SK_CHECK(strcmp(sk_status_name(kStatuses[i].status), kStatuses[i].name) == 0, "name is %s",
             sk_status_name(kStatuses[i].status));
    SK_CHECK(strcmp(sk_status_string(kStatuses[i].status), kStatuses[i].text) == 0 && kStatuses[i].text[0] != '\0',
             "description is '%s'", sk_status_string(kStatuses[i].status));
    SK_CHECK(v == 0 || (v >= 100 && v < 200) || (v >= 200 && v < 300) || v == 999, "value %d is outside the bands", v);
    for (j = 0; j < i; ++j) SK_CHECK(kStatuses[j].value != v, "value %d is used twice", v);
  }
  /* Codes that callers test for by value (the list above checks every code generically). */
  sk_test_context("host allocation status");
  SK_CHECK((int)SK_ERROR_HOST_ALLOCATION_FAILED == 205 &&
               strcmp(sk_status_name(SK_ERROR_HOST_ALLOCATION_FAILED), "SK_ERROR_HOST_ALLOCATION_FAILED") == 0,
           "SK_ERROR_HOST_ALLOCATION_FAILED is %d", (int)SK_ERROR_HOST_ALLOCATION_FAILED);
  sk_test_context("unknown status");
  SK_CHECK(strcmp(sk_status_name((sk_status)12345), "SK_STATUS_UNKNOWN") == 0, "name of an unknown value");
  SK_CHECK(strcmp(sk_status_string((sk_status)-1), "unknown samplekit status") == 0, "text of an unknown value");
}

static void test_version(void) {
  int major = -1, minor = -1, patch = -1;
  sk_test_context("sk_get_version");
  SK_CHECK(sk_get_version(&major, &minor, &patch) == SK_SUCCESS, "did not succeed");
  SK_CHECK(major == SK_VERSION_MAJOR && minor == SK_VERSION_MINOR && patch == SK_VERSION_PATCH,
           "library %d.%d.%d, headers %d.%d.%d", major, minor, patch, SK_VERSION_MAJOR, SK_VERSION_MINOR,
           SK_VERSION_PATCH);
  SK_CHECK(SK_VERSION == major * 10000 + minor * 100 + patch, "SK_VERSION disagrees with its parts");
  SK_CHECK(sk_get_version(NULL, NULL, NULL) == SK_SUCCESS, "NULL outputs are not accepted");
}

/* cudaError_t values, written out so that this C test needs no CUDA header: they are part of CUDA's ABI. */
enum { kCudaSuccess = 0, kCudaErrorMemoryAllocation = 2, kCudaErrorInvalidConfiguration = 9,
       kCudaErrorNoDevice = 100, kCudaErrorInvalidValue = 1, kCudaErrorIllegalAddress = 700 };

static void test_cuda_error_mapping(void) {
  sk_test_context("sk_status_from_cuda_error");
  sk_clear_cuda_error();
  SK_CHECK(sk_status_from_cuda_error(kCudaSuccess) == SK_SUCCESS && sk_last_cuda_error() == 0,
           "success is not SK_SUCCESS, or was recorded");
  SK_CHECK(sk_status_from_cuda_error(kCudaErrorMemoryAllocation) == SK_ERROR_CUDA_ALLOCATION_FAILED,
           "allocation failure");
  SK_CHECK(sk_last_cuda_error() == kCudaErrorMemoryAllocation, "the CUDA code was not kept");
  SK_CHECK(strlen(sk_last_cuda_error_string()) > 0, "no text for the CUDA code");
  SK_CHECK(sk_status_from_cuda_error(kCudaErrorInvalidConfiguration) == SK_ERROR_CUDA_LAUNCH_FAILED, "bad launch");
  SK_CHECK(sk_status_from_cuda_error(kCudaErrorIllegalAddress) == SK_ERROR_CUDA_LAUNCH_FAILED, "kernel fault");
  SK_CHECK(sk_status_from_cuda_error(kCudaErrorNoDevice) == SK_ERROR_NO_DEVICE, "no device");
  SK_CHECK(sk_status_from_cuda_error(kCudaErrorInvalidValue) == SK_ERROR_CUDA && sk_last_cuda_error() == 1,
           "other errors");
  sk_clear_cuda_error();
  SK_CHECK(sk_last_cuda_error() == 0, "sk_clear_cuda_error did not clear");
}

static void test_invalid_arguments(void) {
  sk_device_info info;
  float dummy;
  sk_test_context("invalid arguments");
  sk_clear_cuda_error();
  SK_CHECK(sk_device_query(0, NULL) == SK_ERROR_NULL_POINTER, "sk_device_query with info NULL");
  SK_CHECK(sk_device_query(-1, &info) == SK_ERROR_INVALID_VALUE, "sk_device_query with device -1");
  SK_CHECK(sk_rng_fill_uniform_f32(1, 2, 3, NULL, 10, 0) == SK_ERROR_NULL_POINTER, "fill with d_out NULL");
  SK_CHECK(sk_rng_fill_uniform_f32(1, 2, 3, NULL, 0, 0) == SK_SUCCESS, "fill of 0 floats");
  SK_CHECK(sk_rng_fill_uniform_f32(1, 2, UINT64_MAX - 5, &dummy, 10, 0) == SK_ERROR_INVALID_VALUE,
           "fill whose index range overflows");
  SK_CHECK(sk_last_cuda_error() == 0, "an argument check reached CUDA");
}

/* Without a driver or a device, launching calls and the size queries that ask the device (CUB) report
   SK_ERROR_NO_DEVICE, as documented: not SK_ERROR_CUDA_PENDING (every runtime call fails then,
   cudaGetLastError() too, which is no earlier work) nor CUB's code for an invalid device. Only where
   sk_device_query() finds no device: elsewhere these arguments would launch. */
static void test_without_a_device(void) {
  sk_device_info info;
  size_t bytes = 7;
  float dummy = 0.0f;
  int out = 0;
  sk_test_context("without a device");
  if (sk_device_query(0, &info) != SK_ERROR_NO_DEVICE) {
    printf("note: a CUDA device is present: the no-device statuses are not checked here\n");
    return;
  }
  SK_CHECK(sk_rng_fill_uniform_f32(1, 2, 3, &dummy, 1, 0) == SK_ERROR_NO_DEVICE, "a fill");
  SK_CHECK(sk_sample_categorical_f32(&dummy, 1, 1, 1, 1, 0, &out, 0) == SK_ERROR_NO_DEVICE, "a categorical draw");
  SK_CHECK(sk_csr_chunk_order_device_workspace_size(100, 100, &bytes) == SK_ERROR_NO_DEVICE && bytes == 7,
           "the order's workspace size");
  SK_CHECK(sk_csr_chunk_groups_device_workspace_size(10, &bytes) == SK_ERROR_NO_DEVICE && bytes == 7,
           "the groups' workspace size");
  SK_CHECK(sk_segmented_count_workspace_size(1, 1, 4, &bytes) == SK_ERROR_NO_DEVICE && bytes == 7,
           "the segmented count's workspace size");
  SK_CHECK(sk_rng_fill_uniform_f32(1, 2, 3, &dummy, 1, 0) == SK_ERROR_NO_DEVICE, "a second fill (none pending)");
}

/* rng.h compiled by a C compiler: the host path must give the Random123 known answer. */
static void test_rng_from_c(void) {
  const sk_u32x4 ctr = {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u};
  const sk_u32x4 r = sk_philox4x32_10(ctr, 0xa4093822u, 0x299f31d0u);
  sk_test_context("rng.h from C");
  SK_CHECK(r.x == 0xd16cfe09u && r.y == 0x94fdccebu && r.z == 0x5001e420u && r.w == 0x24126ea1u,
           "Philox4x32-10 known answer differs");
  SK_CHECK(sk_rng_uniform_f32(0, 0, 0) == sk_rng_unit_f32(0x6627e8d5u), "first draw of seed 0 differs");
}

int main(void) {
  test_statuses();
  test_version();
  test_cuda_error_mapping();
  test_invalid_arguments();
  test_without_a_device();
  test_rng_from_c();
  return sk_test_finish();
}
