/**
 * WebShop's colour vocabulary (`web_agent_site/engine/normalize.py`, MIT), in its order: option
 * matching maps a value to the first of these words it contains, so the order decides ties.
 */
const COLOR_SET = (
  "alabaster apricot aqua ash asphalt azure banana beige black blue blush bordeaux bronze brown " +
  "burgundy camel camo caramel champagne charcoal cheetah chestnut chocolate christmas coffee cognac " +
  "copper coral cranberry cream crystal dark denim eggplant elephant espresso fuchsia gold granite " +
  "grape graphite grass gray green grey heather indigo ivory ivy khaki lavender lemon leopard light " +
  "lilac lime magenta maroon mauve merlot midnight mint mocha multicolor mushroom mustard natural navy " +
  "nude olive orange peach pewter pink plum purple rainbow red rose royal rust sand sapphire seashell " +
  "silver skull slate steel stone stonewash sunflower tan taupe teal tiger turquoise violet walnut " +
  "wheat white wine yellow"
).split(" ");

/**
 * `normalize_color`: the first colour word that occurs in the value as a substring (so `washable`
 * becomes `ash`, as in WebShop), or the value unchanged.
 */
export function normalizeColor(value: string): string {
  return COLOR_SET.find((c) => value.includes(c)) ?? value;
}

/**
 * `normalize_color` applied to a Python tuple `(name, value)`, which is what WebShop's `get_reward`
 * passes for synthetic goals (`goal_options.items()`): `c in tuple` tests equality with an element, so
 * a colour survives only when the name or the value is exactly that word. Otherwise the tuple goes on
 * to the fuzzy matcher, which reads it as `str(tuple)`: both words, so that text is returned.
 */
export function normalizeColorPair(name: string, value: string): string {
  return COLOR_SET.find((c) => c === name || c === value) ?? `('${name}', '${value}')`;
}
