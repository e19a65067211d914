// Preloaded (node --require) into the microlink CLI. @microlink/cli 2.1.39
// loads pretty-bytes 7, an ES module, with require(): Node then hands it the
// module namespace, not the function, and the CLI's pretty output stops with
// "print.bytes is not a function" after printing the data, whatever server
// answered (on a Node without require() of ES modules it cannot load at
// all). This gives the CLI the function it expects and changes nothing
// else, so the rest of its pretty output, the part that reads glimpse's
// headers, can be checked.
'use strict'
const Module = require('node:module')

const load = Module._load
Module._load = function (request) {
  if (request !== 'pretty-bytes') return load.apply(this, arguments)
  try {
    const m = load.apply(this, arguments)
    return typeof m === 'function' ? m : m.default
  } catch (err) {
    if (err.code !== 'ERR_REQUIRE_ESM') throw err
    return bytes => `${bytes} B`
  }
}
