/** Token ids are `tok_` and 24 hex digits (see mintToken): what paths, cursors and routes accept. */
export const TOKEN_ID_PATTERN = '^tok_[0-9a-f]{24}$'
