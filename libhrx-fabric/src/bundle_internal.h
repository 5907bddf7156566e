/* Private helpers shared by the bundle sources. */
#ifndef HRX_FABRIC_SRC_BUNDLE_INTERNAL_H_
#define HRX_FABRIC_SRC_BUNDLE_INTERNAL_H_

#include "hrx/fabric/bundle.h"

/* Checks every listed file of the bundle in |dir|. */
hrx_status_t hrx_bundle_verify_dir(const hrx_fabric_bundle_manifest_t* m,
                                   const char* dir);

/* Installs |archive_path| as |dir| inside |store| through a private
 * temporary directory renamed into place; an intact installed bundle is
 * kept. The archive's digest is checked first unless |digest_checked| (a
 * download hashed while streaming). The caller holds the bundle's lock. */
hrx_status_t hrx_bundle_install_locked(const hrx_fabric_bundle_manifest_t* m,
                                       const char* archive_path,
                                       bool digest_checked, const char* store,
                                       const char* dir,
                                       hrx_allocator_t allocator);

typedef hrx_status_t (*hrx_bundle_locked_fn)(
    void* context, const hrx_fabric_bundle_manifest_t* m, const char* store,
    const char* dir, hrx_allocator_t allocator);

/* Runs |fn| holding the lock of |m|'s bundle, with its store and
 * directory; |out_dir| (may be NULL) receives the directory on success. */
hrx_status_t hrx_bundle_with_lock(const hrx_fabric_bundle_manifest_t* m,
                                  const char* cache_root,
                                  hrx_allocator_t allocator,
                                  hrx_bundle_locked_fn fn, void* context,
                                  char** out_dir);

#endif /* HRX_FABRIC_SRC_BUNDLE_INTERNAL_H_ */
