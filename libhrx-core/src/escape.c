#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hrx/core/escape.h"

/* Length of the valid UTF-8 sequence at |s| (at most |left| bytes), or 0. */
static size_t hrx_utf8_sequence(const uint8_t* s, size_t left,
                                uint32_t* out_code) {
  uint8_t lead = s[0];
  size_t count;
  uint32_t code, min;
  if (lead < 0x80) {
    *out_code = lead;
    return 1;
  } else if ((lead & 0xe0) == 0xc0) {
    count = 2, code = lead & 0x1f, min = 0x80;
  } else if ((lead & 0xf0) == 0xe0) {
    count = 3, code = lead & 0x0f, min = 0x800;
  } else if ((lead & 0xf8) == 0xf0) {
    count = 4, code = lead & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (count > left) return 0;
  for (size_t i = 1; i < count; ++i) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    code = (code << 6) | (s[i] & 0x3f);
  }
  if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
    return 0;
  }
  *out_code = code;
  return count;
}

bool hrx_utf8_valid(const char* text, size_t length) {
  const uint8_t* s = (const uint8_t*)text;
  size_t i = 0;
  while (i < length) {
    uint32_t code;
    size_t n = hrx_utf8_sequence(s + i, length - i, &code);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

/* Escapes the piece at |s| into |piece| and returns how many input bytes it
 * consumed; |*out_piece_length| receives the escaped length. */
static size_t hrx_escape_piece(const uint8_t* s, size_t left, char piece[8],
                               size_t* out_piece_length) {
  uint32_t code;
  size_t n = hrx_utf8_sequence(s, left, &code);
  const char* named = NULL;
  if (n == 1) {
    if (code == '\n') named = "\\n";
    if (code == '\r') named = "\\r";
    if (code == '\t') named = "\\t";
    if (code == '\\') named = "\\\\";
  }
  if (named) {
    memcpy(piece, named, 2);
    *out_piece_length = 2;
    return 1;
  }
  bool printable = n > 1 ? !(code >= 0x80 && code <= 0x9f)
                         : n == 1 && code >= 0x20 && code < 0x7f;
  if (printable) {
    memcpy(piece, s, n);
    *out_piece_length = n;
    return n;
  }
  snprintf(piece, 8, "\\x%02x", s[0]);
  *out_piece_length = 4;
  return 1;
}

const char* hrx_escape_text(const char* text, size_t length, char* out,
                            size_t capacity) {
  if (capacity == 0) return out;
  const uint8_t* s = (const uint8_t*)text;
  size_t total = 0;
  for (size_t i = 0; i < length;) {
    char piece[8];
    size_t piece_length;
    i += hrx_escape_piece(s + i, length - i, piece, &piece_length);
    total += piece_length;
  }
  /* Text that does not fit keeps room for "..." after its last piece. */
  size_t reserve = total + 1 > capacity ? 3 : 0;
  size_t used = 0, i = 0;
  while (i < length) {
    char piece[8];
    size_t piece_length;
    size_t consumed = hrx_escape_piece(s + i, length - i, piece,
                                       &piece_length);
    if (used + piece_length + reserve + 1 > capacity) {
      size_t dots = capacity - 1 - used < 3 ? capacity - 1 - used : 3;
      memcpy(out + used, "...", dots);
      used += dots;
      break;
    }
    memcpy(out + used, piece, piece_length);
    used += piece_length;
    i += consumed;
  }
  out[used] = '\0';
  return out;
}

hrx_status_t hrx_string_builder_append_escaped(hrx_string_builder_t* builder,
                                               const char* text,
                                               size_t length) {
  const uint8_t* s = (const uint8_t*)text;
  size_t start_length = builder->length;
  size_t i = 0;
  while (i < length) {
    char piece[8];
    size_t piece_length;
    i += hrx_escape_piece(s + i, length - i, piece, &piece_length);
    hrx_status_t status =
        hrx_string_builder_append(builder, piece, piece_length);
    if (status != HRX_OK) {
      hrx_string_builder_truncate(builder, start_length);
      return status;
    }
  }
  return HRX_OK;
}
