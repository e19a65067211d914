// Drives glimpse's MCP endpoint with the official TypeScript SDK, as an
// agent's MCP client does, and prints one JSON line per case:
// {"name": ..., "ok": true|false, "detail": ...}, then {"done": <count>}.
//
//   node client.mjs <clients dir>
//
// GLIMPSE_MCP_URL is the endpoint (…/mcp), GLIMPSE_PAGES the test's page
// server (no trailing /), GLIMPSE_CLOSED_URL a loopback address nothing
// listens on. The plans give `k-tiny` and `k-tiny-2` a quota of 1.
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const clientsDir = process.argv[2]
const endpoint = process.env.GLIMPSE_MCP_URL
const pages = process.env.GLIMPSE_PAGES
const closed = process.env.GLIMPSE_CLOSED_URL
if (!clientsDir || !endpoint || !pages || !closed) {
  console.error('usage: GLIMPSE_MCP_URL=... GLIMPSE_PAGES=... GLIMPSE_CLOSED_URL=... node client.mjs <clients dir>')
  process.exit(2)
}

const sdk = join(clientsDir, 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'esm', 'client')
const { Client } = await import(pathToFileURL(join(sdk, 'index.js')).href)
const { StreamableHTTPClientTransport } = await import(pathToFileURL(join(sdk, 'streamableHttp.js')).href)

const connect = async (headers = {}) => {
  const client = new Client({ name: 'glimpse-test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers } })
  await client.connect(transport)
  return client
}

const cases = []
const test = (name, fn) => cases.push({ name, fn })

class Failure extends Error {}
const check = (cond, msg) => {
  if (!cond) throw new Failure(msg)
}
const show = v => JSON.stringify(v)
const eq = (got, want, what) =>
  check(show(got) === show(want), `${what} is ${show(got)}, want ${show(want)}`)

const texts = res => res.content.filter(c => c.type === 'text').map(c => c.text)

// ok calls a tool and expects a result that is not an error.
const ok = async (client, name, args) => {
  const res = await client.callTool({ name, arguments: args })
  check(!res.isError, `${name} failed: ${texts(res).join(' ')}`)
  return res
}

// toolError calls a tool and expects a tool error (never a protocol error)
// carrying glimpse's code.
const toolError = async (client, name, args, code) => {
  const res = await client.callTool({ name, arguments: args })
  check(res.isError === true, `${name}(${show(args)}) succeeded; want the tool error ${code}`)
  const sc = res.structuredContent || {}
  eq(sc.code, code, `${name}'s error code`)
  check(typeof sc.message === 'string' && sc.message.length > 20, `the ${code} error has no message worth reading: ${show(sc)}`)
  const text = texts(res).join('\n')
  check(text.startsWith(code + ': '), `the text of the ${code} error does not start with its code: ${show(text)}`)
  return res
}

const fetchBytes = async url => {
  const res = await fetch(url)
  check(res.ok, `fetching ${url} answered ${res.status}`)
  return { type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()) }
}

const anon = await connect()
const article = pages + '/article'

const TOOLS = ['extract', 'html', 'images', 'links', 'markdown', 'metadata', 'pdf', 'screenshot', 'text']

test('lists the tools, each described for a model with url required', async () => {
  const { tools } = await anon.listTools()
  eq(tools.map(t => t.name).sort(), TOOLS, 'the tools')
  for (const t of tools) {
    check(t.description.length >= 120, `${t.name}'s description is too short to tell a model what it returns and costs: ${show(t.description)}`)
    check(/quota/.test(t.description), `${t.name}'s description does not say what it costs`)
    eq(t.inputSchema.type, 'object', `${t.name}'s input schema type`)
    check((t.inputSchema.required || []).includes('url'), `${t.name} does not require url`)
    check(t.inputSchema.properties.url.description, `${t.name}'s url has no description`)
    eq(t.annotations && t.annotations.readOnlyHint, true, `${t.name}'s readOnlyHint`)
  }
})

test('metadata answers the fields as structuredContent', async () => {
  const res = await ok(anon, 'metadata', { url: article })
  const d = res.structuredContent
  eq(d.title, 'A loopback article', 'title')
  eq(d.description, 'What a page served on loopback says about itself.', 'description')
  eq(d.author, 'Ada Lovelace', 'author')
  eq(d.date, '2026-11-20T10:04:05.000Z', 'date')
  eq(d.image && d.image.url, pages + '/pic.png', 'image.url')
  eq(d.image && d.image.width, 120, 'image.width')
  eq(d.statusCode, 200, 'statusCode')
  eq(JSON.parse(texts(res)[0]).title, d.title, 'the text copy of the title')
})

test('metadata with fields answers only those', async () => {
  const res = await ok(anon, 'metadata', { url: article, fields: ['title', 'lang'] })
  eq(Object.keys(res.structuredContent).sort(), ['lang', 'statusCode', 'title'], 'the keys')
})

test('markdown is the main content as plain text', async () => {
  const res = await ok(anon, 'markdown', { url: article })
  check(res.structuredContent === undefined, 'markdown answered structuredContent; it is text')
  const md = texts(res).join('')
  check(md.includes('The first paragraph of the article'), `the article is missing: ${show(md)}`)
  check(md.includes('[the second page](' + pages + '/second)'), `links are not absolute Markdown links: ${show(md)}`)
  check(!md.includes('Menu entry'), `the navigation is in the main content: ${show(md)}`)
  check(!md.startsWith('---'), 'frontmatter came without being asked for')
})

test('markdown of the whole page with frontmatter', async () => {
  const md = texts(await ok(anon, 'markdown', { url: article, scope: 'page', frontmatter: true })).join('')
  check(md.startsWith('---\n'), `no frontmatter: ${show(md.slice(0, 80))}`)
  check(md.includes('title: A loopback article'), `the frontmatter has no title: ${show(md.slice(0, 300))}`)
  check(md.includes('Menu entry'), `the whole page has no navigation: ${show(md)}`)
})

test('markdown under a selector', async () => {
  const md = texts(await ok(anon, 'markdown', { url: article, selector: '.aside' })).join('')
  eq(md.trim(), 'An aside, **bold**.', 'the aside')
})

test('text under a selector', async () => {
  eq(texts(await ok(anon, 'text', { url: article, selector: '.price' })).join(''), '$1,299.00', 'the text')
})

test('html under a selector is the element itself', async () => {
  eq(texts(await ok(anon, 'html', { url: article, selector: '.price' })).join(''), '<p class="price">$1,299.00</p>', 'the html')
})

test('screenshot answers the stored file and, being small, the image', async () => {
  const res = await ok(anon, 'screenshot', { url: article })
  const d = res.structuredContent
  eq([d.type, d.width, d.height], ['png', 1280, 800], 'type and size')
  const img = res.content.find(c => c.type === 'image')
  check(img, 'no image content')
  eq(img.mimeType, 'image/png', 'the image type')
  const bytes = Buffer.from(img.data, 'base64')
  eq(bytes.subarray(1, 4).toString(), 'PNG', 'the image signature')
  eq(bytes.length, d.size, 'the image size')
  const stored = await fetchBytes(d.url)
  check(stored.body.equals(bytes), 'the stored file differs from the image sent')
})

test('screenshot of an element as jpeg', async () => {
  const d = (await ok(anon, 'screenshot', { url: article, element: '.price', type: 'jpeg' })).structuredContent
  eq(d.type, 'jpg', 'type')
  check(d.width < 1280 && d.height < 200, `the element's capture is ${d.width}x${d.height}`)
})

test('pdf answers the stored file and a link to it', async () => {
  const res = await ok(anon, 'pdf', { url: article, format: 'Letter', landscape: true })
  const d = res.structuredContent
  eq(d.type, 'pdf', 'type')
  const link = res.content.find(c => c.type === 'resource_link')
  check(link && link.uri === d.url && link.mimeType === 'application/pdf', `no resource link to the PDF: ${show(res.content)}`)
  const stored = await fetchBytes(d.url)
  eq(stored.body.subarray(0, 5).toString(), '%PDF-', 'the stored file')
})

test('links are absolute, http(s) only and each once', async () => {
  const d = (await ok(anon, 'links', { url: article })).structuredContent
  eq(d.links.map(l => l.url), [pages + '/', pages + '/second', 'https://example.org/elsewhere'], 'the links')
  eq(d.count, 3, 'count')
  eq(d.links[1].text, 'Menu entry', 'the first text of /second')
})

test('links under a selector', async () => {
  const d = (await ok(anon, 'links', { url: article, selector: 'article, .aside' })).structuredContent
  eq(d.links.map(l => l.url), [pages + '/second', 'https://example.org/elsewhere'], 'the links')
})

test('images are absolute, lazy ones by data-src, each once', async () => {
  const d = (await ok(anon, 'images', { url: article })).structuredContent
  eq(d.images, [{ url: pages + '/pic.png', alt: 'a red picture' }, { url: pages + '/lazy.png', alt: 'lazy' }, { url: pages + '/logo.png', alt: '' }], 'the images')
})

test('images under a selector', async () => {
  const d = (await ok(anon, 'images', { url: article, selector: 'footer' })).structuredContent
  eq(d.images.map(i => i.url), [pages + '/logo.png'], 'the images')
})

test('extract applies glimpse data rules', async () => {
  const d = (await ok(anon, 'extract', {
    url: article,
    rules: {
      price: { selector: '.price', type: 'number' },
      heading: [{ selector: '.missing', attr: 'text' }, { selector: 'h1', attr: 'text' }],
      menu: { selectorAll: 'nav a', attr: { href: { attr: 'href', type: 'url' }, label: { attr: 'text' } } },
    },
  })).structuredContent
  eq(d, { heading: 'A loopback article', menu: [{ href: pages + '/', label: 'Home' }, { href: pages + '/second', label: 'Menu entry' }], price: 1299 }, 'the values')
})

test('timeout is a number of milliseconds or a string with a unit', async () => {
  await ok(anon, 'metadata', { url: article, timeout: 20000, fields: ['title'] })
  await ok(anon, 'metadata', { url: article, timeout: '20s', fields: ['lang'] })
  const res = await toolError(anon, 'metadata', { url: article, timeout: 'soon' }, 'EINVALQUERY')
  check(res.structuredContent.message.includes('timeout'), `the error does not name timeout: ${res.structuredContent.message}`)
  await toolError(anon, 'metadata', { url: article, timeout: [1] }, 'EINVALQUERY')
})

test('a refused address is EFORBIDDENURL', async () => {
  await toolError(anon, 'metadata', { url: 'http://169.254.169.254/latest/meta-data/' }, 'EFORBIDDENURL')
})

test('an invalid URL is EINVALURL', async () => {
  await toolError(anon, 'markdown', { url: 'no' }, 'EINVALURL')
})

test('a target that refuses the connection is EFETCH', async () => {
  await toolError(anon, 'screenshot', { url: closed }, 'EFETCH')
})

test('arguments outside the schema are EINVALQUERY, still a tool error', async () => {
  await toolError(anon, 'metadata', { url: 5 }, 'EINVALQUERY')
  await toolError(anon, 'links', {}, 'EINVALQUERY')
  await toolError(anon, 'markdown', { url: article, scope: 'everything' }, 'EINVALQUERY')
  await toolError(anon, 'extract', { url: article, rules: {} }, 'EINVALQUERY')
  await toolError(anon, 'pdf', { url: article, format: 'B9' }, 'EINVALQUERY')
})

test('a selector that matches nothing is EINVALQUERY naming it', async () => {
  for (const tool of ['text', 'html', 'markdown']) {
    const res = await toolError(anon, tool, { url: article, selector: '.nowhere' }, 'EINVALQUERY')
    check(res.structuredContent.message.includes('`.nowhere`'), `${tool}'s error does not name the selector: ${res.structuredContent.message}`)
  }
})

test('an unknown key is EAUTH', async () => {
  const c = await connect({ authorization: 'Bearer k-unknown' })
  await toolError(c, 'metadata', { url: article }, 'EAUTH')
  await c.close()
})

test('a bearer key spends its own quota of 1', async () => {
  const c = await connect({ authorization: 'Bearer k-tiny' })
  await ok(c, 'metadata', { url: article })
  await toolError(c, 'metadata', { url: article }, 'ERATE')
  // The anonymous plan is not the key's.
  await ok(anon, 'metadata', { url: article })
  await c.close()
})

test('an x-api-key header spends its own quota of 1', async () => {
  const c = await connect({ 'x-api-key': 'k-tiny-2' })
  await ok(c, 'text', { url: article, selector: 'h1' })
  await toolError(c, 'links', { url: article }, 'ERATE')
  await c.close()
})

const only = process.env.GLIMPSE_CASES ? new RegExp(process.env.GLIMPSE_CASES) : null
let done = 0
for (const { name, fn } of cases) {
  if (only && !only.test(name)) continue
  const start = Date.now()
  try {
    await fn()
    console.log(show({ name, ok: true, ms: Date.now() - start }))
  } catch (err) {
    const detail = err instanceof Failure ? err.message : `${err && err.name}: ${err && err.message}`
    console.log(show({ name, ok: false, detail, ms: Date.now() - start }))
  }
  done++
}
await anon.close()
console.log(show({ done }))
