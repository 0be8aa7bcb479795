// A parsed YAML document rebuilt through JSON once at load, for what V8 makes of it. js-yaml adds each key
// of a mapping by a computed store, and past about sixteen keys V8 turns such an object into a dictionary:
// every later read of a manifest field (a render reads thousands) is a hash lookup. And it cuts each string
// out of the file's text, which V8 keeps in the text's representation: a manifest holding one character
// past Latin-1 (an em dash) gives two-byte strings throughout, and so does every stack file holding one
// (docker-compose.yml, .env.example, the README), hashed, copied and encoded at half the speed and kept
// at twice the size. JSON.parse builds objects with fast properties and one-byte strings where the text
// allows. What CORE_SCHEMA reads is JSON's data model but for .inf, .nan and -0, which JSON would turn into
// null or 0: a document holding one is kept as read. The schema checks come first, on the document as read.

/** `doc` (plain data: objects, arrays, strings, numbers, booleans, null) rebuilt with fast objects and one-byte strings. */
export function settledDocument<T>(doc: T): T {
  // an empty document (undefined) stays as it is, for the caller to refuse
  if (doc === undefined) return doc;
  let exact = true;
  const text = JSON.stringify(doc, (_key, value: unknown) => {
    if (typeof value === 'number' && (!Number.isFinite(value) || Object.is(value, -0))) exact = false;
    return value;
  });
  return exact ? (JSON.parse(text) as T) : doc;
}
