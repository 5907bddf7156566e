/* Storage schemas (encoding.define #family<params> : encoding<schema>) as
 * the backends can honour them. */
#ifndef HRX_LOOM_ENCODING_SCHEMA_H_
#define HRX_LOOM_ENCODING_SCHEMA_H_

#include <stdbool.h>
#include <stddef.h>

#include "ir.h"

/* True when schema value |schema| stores the elements of vector type
 * |vector| exactly as the type already says (one lane per element of the
 * element's own format, densely packed), so code for the plain vector is
 * code for the schema. Otherwise false with the reason in |why|. */
bool loom_schema_stores_as_typed(const loom_module_t* module, uint32_t schema,
                                 loom_type_id_t vector, char* why,
                                 size_t why_size);

#endif /* HRX_LOOM_ENCODING_SCHEMA_H_ */
