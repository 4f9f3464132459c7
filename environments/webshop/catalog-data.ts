/**
 * Vocabulary of the built-in catalog: product kinds in WebShop's five categories, each with the query
 * it is "scraped" under, its breadcrumb, title nouns, attribute phrases and option values. Option
 * values avoid containing a colour word unless they are a colour, so WebShop's colour normalisation
 * (which maps `standard` to `tan`) never hides a correct choice.
 */
export type Kind = {
  category: string;
  query: string;
  crumbs: string;
  nouns: readonly string[];
  attributes: readonly string[];
  options: Readonly<Record<string, readonly string[]>>;
  /** Price band in dollars. */
  price: readonly [number, number];
};

const CLOTHING_SIZES = ["x-small", "small", "medium", "large", "x-large", "xx-large"];
const SHOE_SIZES = ["6", "6.5", "7", "7.5", "8", "8.5", "9", "9.5", "10", "11", "12"];
const COLORS = ["black", "white", "navy blue", "grey", "red", "olive green", "beige", "pink", "brown"];
const PACKS = ["1 count", "2 count", "3 count", "6 count", "12 count"];
const WEIGHTS = ["4 ounce", "8 ounce", "12 ounce", "16 ounce", "32 ounce"];
const FLAVORS = ["vanilla", "chocolate", "strawberry", "sea salt", "honey", "cinnamon", "original"];
const SCENTS = ["lavender", "citrus", "eucalyptus", "unscented", "vanilla", "coconut"];

export const KINDS: readonly Kind[] = [
  {
    category: "fashion",
    query: "men's running shoes",
    crumbs: "Clothing, Shoes & Jewelry › Men › Shoes › Athletic › Running",
    nouns: ["Running Shoes", "Trail Runners", "Road Running Sneakers"],
    attributes: ["rubber sole", "lace up", "memory foam", "non slip", "breathable mesh", "arch support"],
    options: { size: SHOE_SIZES, color: COLORS },
    price: [25, 140],
  },
  {
    category: "fashion",
    query: "women's sandals",
    crumbs: "Clothing, Shoes & Jewelry › Women › Shoes › Sandals › Flat",
    nouns: ["Flat Sandals", "Slide Sandals", "Strappy Sandals"],
    attributes: ["open toe", "ankle strap", "rubber sole", "arch support", "faux leather"],
    options: { size: SHOE_SIZES, color: COLORS },
    price: [15, 80],
  },
  {
    category: "fashion",
    query: "men's hoodies",
    crumbs: "Clothing, Shoes & Jewelry › Men › Clothing › Fashion Hoodies & Sweatshirts",
    nouns: ["Pullover Hoodie", "Zip Hoodie", "Fleece Sweatshirt"],
    attributes: ["long sleeve", "machine wash", "relaxed fit", "cotton blend", "drawstring closure"],
    options: { size: CLOTHING_SIZES, color: COLORS },
    price: [18, 70],
  },
  {
    category: "fashion",
    query: "women's leggings",
    crumbs: "Clothing, Shoes & Jewelry › Women › Clothing › Active › Leggings",
    nouns: ["Yoga Leggings", "Workout Leggings", "Compression Tights"],
    attributes: ["high waist", "tummy control", "quick drying", "moisture wicking", "four way stretch"],
    options: { size: CLOTHING_SIZES, color: COLORS },
    price: [12, 60],
  },
  {
    category: "fashion",
    query: "wrist watches",
    crumbs: "Clothing, Shoes & Jewelry › Men › Watches › Wrist Watches",
    nouns: ["Wrist Watch", "Chronograph Watch", "Quartz Watch"],
    attributes: ["water resistant", "stainless steel", "quartz movement", "easy read", "leather strap"],
    options: { color: ["black", "silver", "rose gold", "brown", "navy blue"] },
    price: [30, 400],
  },
  {
    category: "beauty",
    query: "shampoo",
    crumbs: "Beauty & Personal Care › Hair Care › Shampoo & Conditioner › Shampoos",
    nouns: ["Shampoo", "Clarifying Shampoo", "Volumizing Shampoo"],
    attributes: ["sulfate free", "paraben free", "dry hair", "natural ingredients", "cruelty free"],
    options: { size: WEIGHTS, scent: SCENTS },
    price: [6, 45],
  },
  {
    category: "beauty",
    query: "face moisturizer",
    crumbs: "Beauty & Personal Care › Skin Care › Face › Creams & Moisturizers",
    nouns: ["Face Moisturizer", "Night Cream", "Hydrating Lotion"],
    attributes: ["sensitive skin", "fragrance free", "hyaluronic acid", "oil free", "dermatologist tested"],
    options: { size: WEIGHTS },
    price: [8, 90],
  },
  {
    category: "beauty",
    query: "lipstick",
    crumbs: "Beauty & Personal Care › Makeup › Lips › Lipstick",
    nouns: ["Matte Lipstick", "Liquid Lipstick", "Lip Color"],
    attributes: ["long lasting", "cruelty free", "highly pigmented", "easy apply", "paraben free"],
    options: { color: ["red", "pink", "coral", "plum", "nude", "mauve"] },
    price: [5, 35],
  },
  {
    category: "beauty",
    query: "hair dryer",
    crumbs: "Beauty & Personal Care › Hair Care › Styling Tools › Hair Dryers",
    nouns: ["Hair Dryer", "Ionic Blow Dryer", "Travel Dryer"],
    attributes: ["fast drying", "low noise", "travel size", "ceramic technology", "cool shot"],
    options: { color: ["black", "white", "pink", "purple"] },
    price: [20, 180],
  },
  {
    category: "food",
    query: "protein bars",
    crumbs: "Grocery & Gourmet Food › Snacks & Sweets › Bars › Protein Bars",
    nouns: ["Protein Bars", "Snack Bars", "Energy Bars"],
    attributes: ["gluten free", "low sugar", "high protein", "non gmo", "keto friendly"],
    options: { flavor: FLAVORS, size: PACKS },
    price: [9, 45],
  },
  {
    category: "food",
    query: "ground coffee",
    crumbs: "Grocery & Gourmet Food › Beverages › Coffee, Tea & Cocoa › Coffee › Ground Coffee",
    nouns: ["Ground Coffee", "Coffee Blend", "Dark Roast Coffee"],
    attributes: ["fair trade", "usda organic", "single origin", "kosher certified", "low acid"],
    options: { size: WEIGHTS },
    price: [7, 40],
  },
  {
    category: "food",
    query: "herbal tea",
    crumbs: "Grocery & Gourmet Food › Beverages › Coffee, Tea & Cocoa › Tea › Herbal",
    nouns: ["Herbal Tea", "Tea Bags", "Loose Leaf Tea"],
    attributes: ["caffeine free", "usda organic", "non gmo", "sugar free", "individually wrapped"],
    options: { flavor: ["chamomile", "jasmine", "ginger", "hibiscus", "rooibos"], size: PACKS },
    price: [4, 30],
  },
  {
    category: "food",
    query: "mixed nuts",
    crumbs: "Grocery & Gourmet Food › Snacks & Sweets › Nuts & Seeds › Mixed Nuts",
    nouns: ["Mixed Nuts", "Trail Mix", "Roasted Almonds"],
    attributes: ["dairy free", "low sodium", "resealable bag", "plant based", "gluten free"],
    options: { flavor: ["sea salt", "honey", "unsalted", "smoked"], size: WEIGHTS },
    price: [6, 35],
  },
  {
    category: "furniture",
    query: "office chair",
    crumbs: "Home & Kitchen › Furniture › Home Office Furniture › Home Office Chairs › Desk Chairs",
    nouns: ["Office Chair", "Desk Chair", "Ergonomic Chair"],
    attributes: ["lumbar support", "height adjustable", "easy assemble", "heavy duty", "mesh back"],
    options: { color: ["black", "grey", "white", "navy blue"] },
    price: [60, 450],
  },
  {
    category: "furniture",
    query: "coffee table",
    crumbs: "Home & Kitchen › Furniture › Living Room Furniture › Tables › Coffee Tables",
    nouns: ["Coffee Table", "Cocktail Table", "Lift Top Table"],
    attributes: ["solid wood", "living room", "storage space", "easy assemble", "mid century"],
    options: { color: ["walnut", "black", "white", "espresso", "natural"] },
    price: [70, 600],
  },
  {
    category: "furniture",
    query: "bookshelf",
    crumbs: "Home & Kitchen › Furniture › Home Office Furniture › Bookcases",
    nouns: ["Bookshelf", "Bookcase", "Display Shelf"],
    attributes: ["engineered wood", "wall mounted", "easy assemble", "space saving", "metal frame"],
    options: { color: ["black", "white", "walnut", "grey"], size: ["3 tier", "4 tier", "5 tier"] },
    price: [40, 300],
  },
  {
    category: "furniture",
    query: "bed sheets",
    crumbs: "Home & Kitchen › Bedding › Sheets & Pillowcases › Sheet & Pillowcase Sets",
    nouns: ["Bed Sheet Set", "Sheets", "Microfiber Sheets"],
    attributes: ["deep pocket", "machine wash", "wrinkle free", "breathable fabric", "hypoallergenic"],
    options: { size: ["twin", "full", "queen", "king"], color: COLORS },
    price: [20, 120],
  },
  {
    category: "electronics",
    query: "bluetooth headphones",
    crumbs: "Electronics › Headphones, Earbuds & Accessories › Headphones › Over-Ear",
    nouns: ["Bluetooth Headphones", "Wireless Headset", "Over Ear Headphones"],
    attributes: [
      "noise cancelling",
      "long battery life",
      "built in microphone",
      "fast charging",
      "foldable design",
    ],
    options: { color: ["black", "white", "navy blue", "rose gold"] },
    price: [20, 350],
  },
  {
    category: "electronics",
    query: "usb c charger",
    crumbs: "Electronics › Computers & Accessories › Laptop Accessories › Chargers & Adapters",
    nouns: ["USB C Charger", "Wall Charger", "Power Adapter"],
    attributes: ["fast charging", "compact design", "overcharge protection", "dual port", "travel friendly"],
    options: { size: ["20 watt", "30 watt", "45 watt", "65 watt", "100 watt"] },
    price: [10, 70],
  },
  {
    category: "electronics",
    query: "hdmi cable",
    crumbs: "Electronics › Accessories & Supplies › Audio & Video Accessories › Cables › HDMI Cables",
    nouns: ["HDMI Cable", "High Speed Cable", "Video Cable"],
    attributes: ["gold plated", "high speed", "ultra hd", "braided cord", "plug play"],
    options: {
      size: ["3 feet", "6 feet", "10 feet", "15 feet", "25 feet"],
      color: ["black", "white", "grey"],
    },
    price: [5, 40],
  },
  {
    category: "electronics",
    query: "security camera",
    crumbs: "Electronics › Camera & Photo › Video Surveillance › Surveillance Cameras › Dome Cameras",
    nouns: ["Security Camera", "Wifi Camera", "Surveillance Camera"],
    attributes: ["night vision", "motion detection", "two way audio", "easy install", "weather resistant"],
    options: { size: ["1 pack", "2 pack", "4 pack"] },
    price: [25, 260],
  },
];

export const BRANDS = [
  "Aldora",
  "Brisk & Co",
  "Calloway",
  "Dunmore",
  "Everfield",
  "Foxglen",
  "Granton",
  "Halvar",
  "Ivywick",
  "Juniper Lane",
  "Kestrel",
  "Lumora",
  "Marlow",
  "Northby",
  "Oakridge",
  "Pellham",
  "Quillon",
  "Rivanna",
  "Selby",
  "Tamsin",
  "Umberly",
  "Valecrest",
  "Westor",
  "Yarrow",
  "Zephyra",
] as const;

export const ADJECTIVES = [
  "Classic",
  "Premium",
  "Essential",
  "Modern",
  "Deluxe",
  "Everyday",
  "Pro",
  "Ultra",
  "Signature",
  "Vintage",
] as const;
