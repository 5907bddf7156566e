/* Private helpers shared by the bundle sources. */
#ifndef HRX_FABRIC_SRC_BUNDLE_INTERNAL_H_
#define HRX_FABRIC_SRC_BUNDLE_INTERNAL_H_

#include "hrx/fabric/bundle.h"

/* Accepts https://, http:// (a loopback test server, a local mirror),
 * file:/// with an absolute path, or a relative path without a scheme;
 * |source| labels the message. */
hrx_status_t hrx_bundle_check_url(const char* url, const char* source);

/* bsearch comparator of a name against |m|->files. */
int hrx_bundle_find_file(const void* key, const void* element);

/* The path of |m|'s archive when its url names a local file (resolving a
 * relative url against the manifest's directory); NULL for a download. */
hrx_status_t hrx_bundle_local_archive(const hrx_fabric_bundle_manifest_t* m,
                                      hrx_allocator_t allocator,
                                      char** out_path);

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
